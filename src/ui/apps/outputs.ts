/**
 * What an MCP Apps view may assume of the tool result it renders, typed by the output schema of the operation that
 * answered it (z.output), so renaming or removing a field a view reads breaks the view's compile.
 *
 * The schemas are imported as types only, from modules that import nothing but zod and constants (the optimize and
 * tracker contracts, src/tools/optimize/schemas.ts, src/tools/content/artifacts-schema.ts): tsconfig.ui.json
 * type-checks them with the views (DOM, no Node types), and nothing of them is bundled into a view.
 *
 * A tool result is untrusted input (scraped titles, drafts and notes; a host hands over whatever it got), so a view
 * is typed by `Untrusted<output>`, not by the output itself: the schema's fields and nesting, every field optional
 * and every value any JSON value until the view checks it (dom.ts: `str`, `num`, `obj`, `list`). mountView checks at
 * run time that the body is JSON before rendering it, and the compiler checks where a view is defined that any JSON
 * object is an `Untrusted` body (view.ts, `defineView`), so the type never claims more than was checked.
 */
import type { z } from 'zod';
import type { OptimizationRecord, ScoreAnswer } from '../../tools/optimize/schemas.ts';
import type { TrendsRecord } from '../../engine/tracker/contract.ts';
import type { ArtifactsAnswer } from '../../tools/content/artifacts-schema.ts';

/**
 * The output schema of each operation a view renders, by operation name: the schema the operation's definition
 * answers with (`output:` in src/tools/**; test/mcp/apps-outputs.test.ts checks each is that schema).
 */
export interface ViewOutputs {
  get_optimization: typeof OptimizationRecord;
  score_content: typeof ScoreAnswer;
  get_tracker_trends: typeof TrendsRecord;
  get_content_artifacts: typeof ArtifactsAnswer;
}

export type ViewOperation = keyof ViewOutputs;

/** What a host can hand a view: JSON (structured content), checked by `isJson`. */
export type Json = string | number | boolean | null | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

type Scalar = string | number | boolean | null;

/** True when `T` is a union of more than one type. */
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;
type KeysOfAny<T> = T extends unknown ? keyof T : never;
type ValueOfAny<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/**
 * An object of the schema, read as untrusted: its fields (of any of its variants, for a union such as
 * get_content_artifacts' JSON-or-document answer), each optional and itself untrusted.
 */
type Fields<O> =
  true extends IsUnion<O>
    ? { readonly [K in KeysOfAny<O>]?: Untrusted<ValueOfAny<O, K>> }
    : { readonly [K in keyof O]?: Untrusted<O[K]> };

/**
 * A value where the schema has a `T`: any JSON value, except that an object or array of the schema is read through
 * its shape (`Fields`, elements `Untrusted`) once the view has checked it is one (`obj`, `list`).
 */
export type Untrusted<T> =
  | Scalar
  | ([Extract<T, readonly unknown[]>] extends [never] ? Json[] : Untrusted<Extract<T, readonly unknown[]>[number]>[])
  | ([Exclude<Extract<T, object>, readonly unknown[]>] extends [never]
      ? JsonObject
      : Fields<Exclude<Extract<T, object>, readonly unknown[]>>);

/** Type-only: the key of the operations a body is of (no value has it; see `ViewBody`). */
declare const operations: unique symbol;

/**
 * The body a view renders for the operations `N`: their output, untrusted. It also names `N` (a key no JSON has), so
 * a view written for some operations cannot be defined for another one (view.ts, `defineView`).
 */
export type ViewBody<N extends ViewOperation> = Fields<z.output<ViewOutputs[N]>> & { readonly [operations]?: N };
