/**
 * The one parse/serialise pair of the store's JSON columns (TEXT holding JSON). `jsonColumn(schema)` validates a value
 * against its zod schema when it is written and answers the schema's type when it is read; `checked: true` validates
 * reads too (small columns whose every row is cheap to check). `typedColumn<T>()` is the same pair for values whose
 * shape is a TypeScript type the engine builds (artifacts, models): typed, not checked at run time.
 *
 * This is the only place a column's JSON text becomes a typed value: nothing outside src/store casts JSON.parse.
 */
import { z } from 'zod';

export interface JsonColumn<T> {
  /** The column's text for `value` (validated when the column has a schema). */
  write(value: T): string;
  /** The column's value. */
  read(text: string): T;
  /** The column's value, or null for a null column. */
  readNullable(text: string | null): T | null;
  /** The column's value, or `fallback` for a null column. */
  readOr(text: string | null, fallback: T): T;
}

export function jsonColumn<S extends z.ZodType>(
  schema: S,
  options: { checked?: boolean } = {},
): JsonColumn<z.output<S>> {
  const read = (text: string): z.output<S> => {
    const value: unknown = JSON.parse(text);
    return options.checked ? schema.parse(value) : (value as z.output<S>);
  };
  return {
    write(value) {
      // Validates; the value itself is written as given (an object schema would drop keys it does not name).
      schema.parse(value);
      return JSON.stringify(value);
    },
    read,
    readNullable: (text) => (text === null ? null : read(text)),
    readOr: (text, fallback) => (text === null ? fallback : read(text)),
  };
}

/** A column of a TypeScript type the engine builds and reads back: typed, not checked at run time. */
export function typedColumn<T>(): JsonColumn<T> {
  return jsonColumn(z.custom<T>(() => true));
}
