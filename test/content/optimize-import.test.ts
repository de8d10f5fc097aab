import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createdJob, getArtifacts, settle, startContentApp, tenant, type Tenant } from './helpers/harness.ts';

/**
 * project_mode optimize imports the client's own page as the starting draft: its main content only (a forum thread
 * keeps every post, the question first, without the cookie notice or the pagination), no block twice, and the
 * client's own sentences without a citation marker.
 */
let t: TestApp;
let a: Tenant;
let draft: string;

const THREAD = 'https://bakersbench.community/threads/starter-not-rising-after-7-days.2231/';

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t, 'agency', { name: 'Bakers Bench', domain: 'bakersbench.community' });
  const job = await createdJob(t, a.key, {
    topic: 'sourdough starter not rising',
    client_id: a.clientId,
    page_contract: 'article',
    project_mode: 'optimize',
    source_url: THREAD,
  });
  expect(await settle(t, job.job_id)).toBe('completed');
  draft = (await getArtifacts(t, a.key, job.job_id)).body.draft!.content;
});
afterAll(async () => {
  await t?.close();
});

describe('the imported forum thread', () => {
  const question = 'I started my first sourdough starter last Friday';
  const replies = [
    'That day-2 rise was bacteria (leuconostoc), not yeast.',
    'Also try feeding only once a day while it',
    'Update day 11: moved it to the oven with the light on',
    'Give it three more days of predictable doubling, then bake.',
  ];

  it('keeps the question post first and every reply after it, in page order', () => {
    const at = draft.indexOf(question);
    expect(at, draft.slice(0, 600)).toBeGreaterThanOrEqual(0);
    let last = at;
    for (const r of replies) {
      const i = draft.indexOf(r);
      expect(i, r).toBeGreaterThan(last);
      last = i;
    }
  });

  it('leaves out the cookie notice, the pagination, the navigation and the footer', () => {
    for (const chrome of ['uses cookies', 'Next page', 'Similar threads', 'Privacy policy', "What's new"])
      expect(draft, chrome).not.toContain(chrome);
  });

  it('holds no block twice', () => {
    const blocks = draft
      .split(/\n{2,}/)
      .map((b) => b.replace(/\s*\[\d+\]/g, '').trim())
      .filter((b) => b.length > 40);
    expect(blocks.length - new Set(blocks).size).toBe(0);
  });

  it("the client's own sentences carry no citation marker", () => {
    const line = draft.split('\n').find((l) => l.includes(question))!;
    expect(line).not.toMatch(/\[\d+\]/);
  });
});
