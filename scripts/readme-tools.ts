/**
 * Rewrites the README's tool table (between `<!-- tools:start -->` and `<!-- tools:end -->`) from the registry.
 * Run: node --import tsx scripts/readme-tools.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OPERATIONS } from '../src/tools/registry.ts';

const path = fileURLToPath(new URL('../README.md', import.meta.url));
const readme = readFileSync(path, 'utf8');
const rows = OPERATIONS.map(
  (op) =>
    `| \`${op.name}\` | \`${op.http.method} ${op.http.path}\` | ${op.scope ? `\`${op.scope}\`` : 'any key'} | ${op.idempotency} |`,
);
const table = ['| MCP tool | REST | scope | idempotency |', '|---|---|---|---|', ...rows].join('\n');
const next = readme.replace(
  /<!-- tools:start -->[\s\S]*<!-- tools:end -->/,
  `<!-- tools:start -->\n${table}\n<!-- tools:end -->`,
);
writeFileSync(path, next);
process.stderr.write(`README tool table: ${OPERATIONS.length} tools\n`);
