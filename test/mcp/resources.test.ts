import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { connectHttpClient, connectModernHttpClient, structured } from '../helpers/mcp.ts';
import {
  approve,
  createdJob,
  ESPRESSO,
  idem,
  run,
  startContentApp,
  tenant,
  type Tenant,
} from '../content/helpers/harness.ts';
import { drain } from '../optimize/helpers/harness.ts';

/**
 * Big results as resources: tool results carry a short text summary and `resource_link`s to the full documents
 * (Optimize report as markdown and JSON, a job's brief as markdown, its draft as markdown and HTML), readable with
 * resources/read in both eras, with the tools' organisation check (another organisation's URI is not found).
 */
let t: TestApp;
let a: Tenant;
let other: Tenant;

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t);
  other = await tenant(t);
});
afterAll(async () => {
  await t?.close();
});

/** Either era's client: both read resources the same way. */
interface Client {
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
}
type Link = { type: string; uri: string; mimeType?: string; name: string };

const contentOf = (result: unknown) => ((result as { content?: unknown[] }).content ?? []) as Link[];
const links = (result: unknown) => contentOf(result).filter((c) => c.type === 'resource_link');
const text = (result: unknown) =>
  (contentOf(result) as unknown as { type: string; text?: string }[]).find((c) => c.type === 'text')?.text ?? '';

async function readText(c: Client, uri: string) {
  const r = await c.readResource({ uri });
  return (r.contents[0] as { text: string; mimeType?: string }).text;
}

describe('resource templates', () => {
  it('lists the five document templates and the call template in both eras', async () => {
    for (const connect of [connectHttpClient, connectModernHttpClient]) {
      const c = await connect(t.url, a.key);
      try {
        const { resourceTemplates } = await c.client.listResourceTemplates();
        expect(resourceTemplates.map((x) => x.uriTemplate).sort()).toEqual([
          'agent-api://calls/{tool}{?arguments}',
          'agent-api://copywriter/jobs/{job_id}/brief.md',
          'agent-api://copywriter/jobs/{job_id}/draft.html',
          'agent-api://copywriter/jobs/{job_id}/draft.md',
          'agent-api://optimizations/{optimization_id}/report.json',
          'agent-api://optimizations/{optimization_id}/report.md',
        ]);
      } finally {
        await c.close();
      }
    }
  });
});

describe('a content job: brief and draft as resources', () => {
  it('links the brief at brief_ready and the draft once completed; reads them; another organisation cannot', async () => {
    const job = await createdJob(
      t,
      a.key,
      { client_id: a.clientId, topic: ESPRESSO, page_contract: 'article', mode: 'stepped' },
      idem('res'),
    );
    await run(t);
    const legacy = await connectHttpClient(t.url, a.key);
    const modern = await connectModernHttpClient(t.url, a.key);
    const stranger = await connectHttpClient(t.url, other.key);
    try {
      const atBrief = await legacy.client.callTool({ name: 'get_content_job', arguments: { job_id: job.job_id } });
      expect(structured(atBrief)).toMatchObject({ status: 'brief_ready' });
      expect(links(atBrief).map((l) => l.uri)).toEqual([`agent-api://copywriter/jobs/${job.job_id}/brief.md`]);
      // The text is a summary that says what to do next, not a second copy of the body.
      expect(text(atBrief)).toContain('approve_content_brief');
      expect(text(atBrief).length).toBeLessThan(JSON.stringify(structured(atBrief)).length);

      const brief = await readText(modern.client, links(atBrief)[0]!.uri);
      expect(brief).toMatch(/^# Brief: /);
      expect(brief).toContain('## Outline');

      expect((await approve(t, a.key, job.job_id)).status).toBe(200);
      await run(t);
      const done = await modern.client.callTool({ name: 'get_content_job', arguments: { job_id: job.job_id } });
      expect(structured(done)).toMatchObject({ status: 'completed' });
      const uris = links(done).map((l) => l.uri);
      expect(uris).toEqual([
        `agent-api://copywriter/jobs/${job.job_id}/brief.md`,
        `agent-api://copywriter/jobs/${job.job_id}/draft.md`,
        `agent-api://copywriter/jobs/${job.job_id}/draft.html`,
      ]);

      // The markdown resource is the same document REST answers for ?format=markdown.
      const rest = await t.request('GET', `/api/agent/v1/copywriter/jobs/${job.job_id}/artifacts?format=markdown`, {
        key: a.key,
      });
      expect(await readText(legacy.client, uris[1]!)).toBe(rest.text);
      const html = await legacy.client.readResource({ uri: uris[2]! });
      expect(html.contents[0]).toMatchObject({ mimeType: 'text/html' });
      expect((html.contents[0] as { text: string }).text).toContain('<html');

      // Another organisation's URI is not found, like the tools' 404.
      for (const uri of uris)
        await expect(stranger.client.readResource({ uri })).rejects.toMatchObject({ code: -32602, data: { uri } });
    } finally {
      await legacy.close();
      await modern.close();
      await stranger.close();
    }
  });

  it('an unknown or malformed URI is not found', async () => {
    const c = await connectHttpClient(t.url, a.key);
    try {
      for (const uri of [
        'agent-api://copywriter/jobs/00000000-0000-4000-8000-000000000000/draft.md',
        'agent-api://copywriter/jobs//draft.md',
        'agent-api://nothing/here',
        'https://example.com/x',
      ])
        await expect(c.client.readResource({ uri })).rejects.toMatchObject({ code: -32602, data: { uri } });
    } finally {
      await c.close();
    }
  });
});

describe('an optimization: its report as resources', () => {
  it('links report.md and report.json once complete; both read back the full result', async () => {
    const c = await connectHttpClient(t.url, a.key);
    try {
      const started = await c.client.callTool({
        name: 'start_optimization',
        arguments: {
          url: 'https://www.rapidflowplumbing.com/emergency-plumbing/',
          keyword: 'emergency plumber austin',
          idempotency_key: idem('res-opt'),
        },
      });
      const id = (structured(started) as { optimization_id: string }).optimization_id;
      expect(links(started)).toEqual([]);
      await t.engine.runner.start();
      try {
        await drain(t);
      } finally {
        await t.engine.runner.stop(0);
      }
      const done = await c.client.callTool({ name: 'get_optimization', arguments: { optimization_id: id } });
      expect(structured(done)).toMatchObject({ status: 'complete' });
      const uris = links(done).map((l) => l.uri);
      expect(uris).toEqual([
        `agent-api://optimizations/${id}/report.md`,
        `agent-api://optimizations/${id}/report.json`,
      ]);
      const md = await readText(c.client, uris[0]!);
      expect(md).toContain('# Optimization report: emergency plumber austin');
      expect(md).toContain('## Recommendations');
      const json = JSON.parse(await readText(c.client, uris[1]!)) as { result: { rankabilityScore: number } };
      const full = await t.request('GET', `/api/agent/v1/optimizations/${id}?view=full`, { key: a.key });
      expect(json).toEqual(full.body);
      expect(md).toContain(`**Score:** ${Math.round(json.result.rankabilityScore * 10) / 10} / 100`);
    } finally {
      await c.close();
    }
  });
});
