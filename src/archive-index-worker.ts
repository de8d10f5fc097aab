/**
 * A worker thread of a search-index build (archive-index.ts starts them): makes pages' text with the server's
 * extractor. Its own entry point in the bundle (scripts/build.mjs), so it loads only what extraction needs.
 */
import { archiveExtractText } from './archive-index.ts';
import { servePageTexts } from './providers/web/archive/page-text-workers.ts';

servePageTexts(archiveExtractText);
