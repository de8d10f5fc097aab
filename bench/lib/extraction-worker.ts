/** Worker thread for the extraction bench: runs both extractors over the shard of pages it is sent. */
import { parentPort } from 'node:worker_threads';
import { type PageInput, runBoth } from './extraction-run.ts';

parentPort?.once('message', (pages: PageInput[]) => {
  parentPort?.postMessage(runBoth(pages));
});
