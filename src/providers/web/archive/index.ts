/**
 * The offline web: WARC reading, the archive lookup table, the archive PageFetcher and the WARC writer.
 * Archive search lives in src/providers/search/archive-search.ts.
 */
export { createWebArchive } from './archive.ts';
export type { ArchiveSnapshot, WebArchive, WebArchiveOptions } from './archive.ts';
export { createArchiveFetcher, pageFromRecord } from './fetcher.ts';
export type { ArchiveFetcherOptions } from './fetcher.ts';
export { listWarcFiles, readArchiveRecords, readWarcFile } from './reader.ts';
export type { ArchivedRecord } from './reader.ts';
export { normalizeArchiveUrl } from './url.ts';
export { serializeExchange, serializeResource, serializeWarcinfo, uuidV5RecordId } from './writer.ts';
export type { HttpCapture, RecordIdFn, WarcWriteOptions } from './writer.ts';
export { fallbackExtractText } from './fallback-extract.ts';
export type { ExtractText } from './fallback-extract.ts';
