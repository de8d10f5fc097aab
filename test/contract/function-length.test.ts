import { describe, expect, it } from 'vitest';
import { longFunctions } from '../../scripts/function-lengths.mjs';

/**
 * No function in src/ runs over 150 lines (nested functions count in the outer one's span), as
 * `node scripts/function-lengths.mjs 150` measures: a longer one is split into named parts with one job each.
 */

const LIMIT = 150;

describe('function length', () => {
  it(`keeps every function in src/ within ${LIMIT} lines`, () => {
    const over = longFunctions(LIMIT).map(([lines, path, line, name]) => `${path}:${line} ${name} (${lines} lines)`);
    expect(over).toEqual([]);
  });
});
