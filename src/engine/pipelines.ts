import type { Engine } from './engine.ts';
import type { Pipeline } from './runner/types.ts';
import { optimizationPipeline } from './optimize/pipeline.ts';
import { trackerScanPipeline } from './tracker/pipeline.ts';
import { autopilotPipeline, contentJobPipeline } from './content/pipelines.ts';

/** Every pipeline the runner serves: the engine registers each of these when it is created. */
export const PIPELINES: readonly ((engine: Engine) => Pipeline | readonly Pipeline[])[] = [
  optimizationPipeline,
  trackerScanPipeline,
  contentJobPipeline,
  autopilotPipeline,
];
