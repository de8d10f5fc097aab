import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ViewOutputs } from '../../src/ui/apps/outputs.ts';
import { appMetaFor } from '../../src/transport/mcp/apps.ts';
import { getOptimization } from '../../src/tools/optimize/get-optimization.ts';
import { scoreContent } from '../../src/tools/optimize/score-content.ts';
import { getTrackerTrends } from '../../src/tools/tracker/get-tracker-trends.ts';
import { getContentArtifacts } from '../../src/tools/content/get-content-artifacts.ts';

/**
 * The MCP Apps views are typed by the output schemas of the operations they render (src/ui/apps/outputs.ts, which
 * names each schema by operation without importing the operations): each is the schema the operation answers with,
 * and each of those operations links a view.
 */
describe('MCP Apps views: typed by their operations’ output schemas', () => {
  // Every operation outputs.ts names, by that name.
  const OPERATIONS = {
    get_optimization: getOptimization,
    score_content: scoreContent,
    get_tracker_trends: getTrackerTrends,
    get_content_artifacts: getContentArtifacts,
  } satisfies Record<keyof ViewOutputs, unknown>;

  it('each view operation answers the schema its view is typed by', () => {
    expectTypeOf(getOptimization.output).toEqualTypeOf<ViewOutputs['get_optimization']>();
    expectTypeOf(scoreContent.output).toEqualTypeOf<ViewOutputs['score_content']>();
    expectTypeOf(getTrackerTrends.output).toEqualTypeOf<ViewOutputs['get_tracker_trends']>();
    expectTypeOf(getContentArtifacts.output).toEqualTypeOf<ViewOutputs['get_content_artifacts']>();
    for (const [name, op] of Object.entries(OPERATIONS)) expect(op.name).toBe(name);
  });

  it('each links a view', () => {
    for (const name of Object.keys(OPERATIONS)) expect(appMetaFor(name), name).toBeDefined();
  });
});
