import { describe, expect, it } from 'vitest';
import { callUri, describeCuts, fitToBudget, parseCallUri } from '../../src/transport/mcp/fit.ts';

/** Results cut to fit an assistant's context (src/transport/mcp/fit.ts). */
describe('fitToBudget', () => {
  it('answers a body that fits as it is, with no cuts', () => {
    const body = { data: [1, 2, 3], note: 'x' };
    expect(fitToBudget(body, 1_000)).toEqual({ body, cuts: [] });
  });

  it('halves the longest list until the body fits, says how much it kept, and leaves the original alone', () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ id: i, text: 'y'.repeat(90) }));
    const body = { data: rows, pagination: { total: 100 } };
    const { body: cut, cuts } = fitToBudget(body, 3_000);
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(3_000);
    expect(cut.data.map((r) => r.id)).toEqual(rows.slice(0, cut.data.length).map((r) => r.id));
    expect(cuts).toEqual([{ path: 'data', kept: cut.data.length, of: 100 }]);
    expect(body.data).toHaveLength(100);
    expect(describeCuts(cuts)).toBe(`Cut to fit an assistant's context: data keeps ${cut.data.length} of 100.`);
  });

  it('shortens the longest text when no list is to blame', () => {
    const body = { client_id: 'c', knowledge_base: 'k'.repeat(10_000) };
    const { body: cut, cuts } = fitToBudget(body, 2_000);
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(2_000);
    expect(cut.knowledge_base.endsWith('…')).toBe(true);
    expect(cuts).toEqual([{ path: 'knowledge_base', kept: cut.knowledge_base.length - 1, of: 10_000 }]);
  });
});

describe('call URIs', () => {
  it('round-trip a tool and its arguments, and refuse anything else', () => {
    const args = { project_id: '7c1c', platform: 'organic', note: 'a&b=c?' };
    const uri = callUri('get_tracker_results', args);
    expect(uri.startsWith('agent-api://calls/get_tracker_results?arguments=')).toBe(true);
    expect(parseCallUri(uri)).toEqual({ tool: 'get_tracker_results', args });
    for (const bad of [
      'agent-api://calls/',
      'agent-api://calls/Get-Usage?arguments=%7B%7D',
      'agent-api://calls/get_usage?arguments=%5B%5D',
      'agent-api://calls/get_usage?arguments=not-json',
      'agent-api://optimizations/x/report.md',
    ])
      expect(parseCallUri(bad), bad).toBeNull();
  });
});
