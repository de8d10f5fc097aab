import type { EngineServices } from '../engine.ts';
import { providerFor } from './pipeline.ts';
import type { TrackerPlatform } from './types.ts';

/** Why an expected platform has no data in a snapshot. */
export type MissingReason =
  'not_configured' | 'no_successful_result' | 'no_finished_run' | 'not_in_run' | 'failed_in_run';

export interface Coverage {
  /** The project's platforms. */
  expected: TrackerPlatform[];
  /** Platforms with data in this answer. */
  present: TrackerPlatform[];
  /** Expected platforms without data: absent from the answer, never reported as zero. */
  missing: TrackerPlatform[];
  reasons: Partial<Record<TrackerPlatform, MissingReason>>;
}

/**
 * Platform coverage of a snapshot. A missing platform's reason: no provider is configured for it now; or, for
 * latest_per_platform, it never produced a successful result; or, for latest_run, there is no finished run, the run
 * did not include it, or it failed in that run.
 */
export function coverage(
  engine: EngineServices,
  expected: readonly TrackerPlatform[],
  present: readonly TrackerPlatform[],
  run: { platforms: readonly TrackerPlatform[] } | null | 'per_platform',
): Coverage {
  const missing = expected.filter((p) => !present.includes(p));
  const reasons: Coverage['reasons'] = {};
  for (const p of missing) {
    if (providerFor(engine, p) === null) reasons[p] = 'not_configured';
    else if (run === 'per_platform') reasons[p] = 'no_successful_result';
    else if (run === null) reasons[p] = 'no_finished_run';
    else reasons[p] = run.platforms.includes(p) ? 'failed_in_run' : 'not_in_run';
  }
  return { expected: [...expected], present: expected.filter((p) => present.includes(p)), missing, reasons };
}
