// Lists the functions in src/ longer than N lines (default 150), longest first, as a TypeScript AST walk counts them:
// from a function's first line to its last, nested functions included in the outer one's span.
// Usage: node scripts/function-lengths.mjs [N]
import ts from 'typescript';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every function over `limit` lines under `dir`: [lines, path relative to the repository, first line, name]. */
export function longFunctions(limit, dir = join(root, 'src')) {
  const files = [];
  (function walk(d) {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) files.push(p);
    }
  })(dir);
  const out = [];
  for (const f of files) {
    const sf = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n) => {
      if (
        ts.isFunctionDeclaration(n) ||
        ts.isFunctionExpression(n) ||
        ts.isArrowFunction(n) ||
        ts.isMethodDeclaration(n)
      ) {
        const a = sf.getLineAndCharacterOfPosition(n.getStart()).line;
        const b = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
        if (b - a + 1 > limit) out.push([b - a + 1, relative(root, f), a + 1, n.name?.getText?.() ?? '(anonymous)']);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out.sort((x, y) => y[0] - x[0]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const found = longFunctions(Number(process.argv[2] ?? 150));
  for (const o of found) console.log(o.join('\t'));
  console.log('count', found.length);
}
