/**
 * The offline web: WARC reading, the on-disk archive index, the archive PageFetcher, the search index and the WARC
 * writer. Archive search lives in src/providers/search/archive-search.ts.
 */
export { createWebArchive, defaultIndexDir } from './archive.ts';
export type { ArchiveIndex, WebArchive, WebArchiveOptions } from './archive.ts';
export { createArchiveFetcher, pageFromRecord } from './fetcher.ts';
export type { ArchiveFetcherOptions } from './fetcher.ts';
export { listWarcFiles, readArchiveRecords, readWarcFile } from './reader.ts';
export type { ArchivedRecord } from './record.ts';
export type { ArchivedEntry } from './record-index.ts';
export { scanWarcFile } from './warc-scan.ts';
export type { RecordLocation, ScannedRecord } from './warc-scan.ts';
export { normalizeArchiveUrl } from './url.ts';
export { serializeExchange, serializeResource, serializeWarcinfo, uuidV5RecordId } from './writer.ts';
export type { HttpCapture, RecordIdFn, WarcWriteOptions } from './writer.ts';
export { fallbackExtractText } from './fallback-extract.ts';
export type { ExtractText } from './fallback-extract.ts';
