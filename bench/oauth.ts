/**
 * `npm run bench -- oauth`: what an OAuth access token costs a request, side by side in this run on one server process:
 * REST GET /usage authenticated with API keys against the same route with access tokens of the built-in
 * authorization server (one grant per key, so each side spreads over as many rate-limit identities). The token side
 * reads the token, its grant and the approving key on every request; the key side reads the key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { authenticate } from '../src/engine/accounts/auth.ts';
import { issueApiKey } from '../src/engine/accounts/admin.ts';
import { SCOPES } from '../src/engine/accounts/scopes.ts';
import { checkAuthorizationRequest, grantableScopes, issueCode } from '../src/engine/oauth/authorization.ts';
import { registerClient } from '../src/engine/oauth/clients.ts';
import { createOrganisation } from '../src/store/repos/organisations.ts';
import { systemClock } from '../src/clock.ts';
import { tempDir } from '../test/helpers/temp.ts';
import { spawnJsonServer, table } from './lib/harness.ts';
import { httpSide, interleave } from './lib/load.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 1_000);
const GRANTS = 300;
/** The server's public URL: the tokens' audience, whatever loopback port the server gets. */
const PUBLIC_URL = 'http://bench.invalid';

/** A database with one organisation, `GRANTS` keys and one approved grant per key; answers keys and access tokens. */
async function seed(dbPath: string) {
  const config = loadConfig({ AGENT_API_DB: dbPath, AGENT_API_LOG_LEVEL: 'silent', AGENT_API_PUBLIC_URL: PUBLIC_URL });
  const app = await createApp({ config, logger: createLogger('silent') });
  const { db } = app.database;
  const clock = systemClock;
  const org = await createOrganisation(db, { name: 'bench', plan: 'agency', subscription: 'active' }, clock.now());
  const client = await registerClient(db, clock, {
    redirect_uris: ['http://127.0.0.1:9/callback'],
    token_endpoint_auth_method: 'none',
    client_name: 'bench',
  });
  const { buildOAuth } = await import('../src/compose.ts');
  const oauth = buildOAuth(config, { db, clock });
  const keys: string[] = [];
  const tokens: string[] = [];
  for (let i = 0; i < GRANTS; i++) {
    const apiKey = (await issueApiKey(db, { orgId: org.id, scopes: SCOPES }, clock.now())).apiKey;
    const verifier = randomBytes(32).toString('base64url');
    const checked = await checkAuthorizationRequest(
      oauth.clients!,
      {
        response_type: ['code'],
        client_id: [client.client_id],
        redirect_uri: [client.redirect_uris[0]!],
        code_challenge: [createHash('sha256').update(verifier).digest('base64url')],
        code_challenge_method: ['S256'],
      },
      [`${PUBLIC_URL}/mcp`, PUBLIC_URL],
    );
    if (!('ok' in checked)) throw new Error('the bench authorization request was refused');
    const principal = await authenticate(db, clock, apiKey);
    const code = await issueCode(db, clock, checked.ok, {
      apiKey,
      principal,
      scopes: grantableScopes(checked.ok, principal),
    });
    const found = await oauth.clients!.find(client.client_id);
    const answer = await oauth.tokens!.exchangeCode(found, {
      code,
      redirectUri: client.redirect_uris[0],
      codeVerifier: verifier,
    });
    keys.push(apiKey);
    tokens.push(answer.access_token);
  }
  await oauth.close();
  await app.close();
  return { keys, tokens };
}

export async function run(): Promise<void> {
  const tmp = tempDir('agent-api-bench-');
  try {
    const { keys, tokens } = await seed(tmp.dbPath);
    const server = await spawnJsonServer('bench/lib/app-server.ts', {
      AGENT_API_DB: tmp.dbPath,
      AGENT_API_LOG_LEVEL: 'silent',
      AGENT_API_PUBLIC_URL: PUBLIC_URL,
    });
    try {
      const url = `http://127.0.0.1:${server.port}/api/agent/v1/usage`;
      let k = 0;
      let t = 0;
      const [key, token] = await interleave(
        [
          httpSide('key', server.pid, { url, headers: () => ({ authorization: `Bearer ${keys[k++ % keys.length]}` }) }),
          httpSide('token', server.pid, {
            url,
            headers: () => ({ authorization: `Bearer ${tokens[t++ % tokens.length]}` }),
          }),
        ],
        ROUNDS,
        ROUND_MS,
      );
      process.stdout.write(
        table(
          ['measure', 'OAuth token', 'API key', 'ratio'],
          [
            [
              'REST GET /usage req/s',
              token!.perSecond.toFixed(0),
              key!.perSecond.toFixed(0),
              (token!.perSecond / key!.perSecond).toFixed(2),
            ],
            [
              'p99 ms (median of rounds)',
              token!.p99.toFixed(1),
              key!.p99.toFixed(1),
              (key!.p99 / Math.max(0.1, token!.p99)).toFixed(2),
            ],
            [
              'server CPU µs per request',
              token!.cpuUsPerOp.toFixed(0),
              key!.cpuUsPerOp.toFixed(0),
              (key!.cpuUsPerOp / Math.max(1, token!.cpuUsPerOp)).toFixed(2),
            ],
            ['errors', String(token!.errors), String(key!.errors), ''],
          ],
        ) + '\n',
      );
    } finally {
      await server.stop();
    }
  } finally {
    tmp.cleanup();
  }
}
