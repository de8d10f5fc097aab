/**
 * Product pages that render their description in scripts: the DOM holds a cart bar and a few labels, while the
 * page's JSON-LD Product carries the description. When the extracted text is that thin, or short and unrelated to
 * the description, the description is the better main content.
 */
import type { StructuredData } from './types.ts';

/** The JSON-LD product description to use instead of `mainText`, or null to keep `mainText`. */
export function productFallback(mainText: string, data: StructuredData): string | null {
  const description = data.products.map((p) => p.description).find((d) => d && d.length >= 100) ?? '';
  if (!description) return null;
  if (mainText.length < 100) return description;
  if (mainText.length >= 500) return null;
  const words = new Set(mainText.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const own = description.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const shared = own.filter((w) => words.has(w)).length;
  return shared < 0.2 * own.length ? description : null;
}
