/**
 * Brands and site names of pages: what Optimize never recommends as a term and what the extractive writer keeps out
 * of a draft (another business's name).
 */
import { siteLabel } from './site.ts';

export interface BrandMatcher {
  /** True when the text names one of the brands. */
  matches(text: string): boolean;
  readonly empty: boolean;
}

/**
 * The brand of a researched page, from its host: the label it registered under its public suffix
 * (`rapidflowplumbing` of www.rapidflowplumbing.co.uk, `rapidflow` of rapidflow.github.io; see site.ts). A text
 * names the brand when a capitalised word is a prefix of at least half the label (`RapidFlow`), or when two to four
 * consecutive words, the first capitalised, spell the whole label (`Austin Pipe Pros`).
 */
export function brandLabel(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
  const label = (siteLabel(host.replace(/^www\d?\./, '')) ?? '').replace(/[^a-z0-9]/g, '');
  return label.length >= 4 ? label : null;
}

export interface BrandMatcherOptions {
  /**
   * A word standing for a label by its first letters must show it is a name by an inner capital (`RapidFlow`,
   * `BrewGeek`): a plain capitalised word such as `Water` or `Kitchen` at the start of a sentence is then not
   * `waterwise` or `kitchenvault`. The extractive writer, which drops whole sentences on a match, asks for this.
   */
  prefixNeedsInnerCapital?: boolean;
}

/** A matcher for brand labels (see brandLabel). */
export function createBrandMatcher(labels: readonly string[], options: BrandMatcherOptions = {}): BrandMatcher {
  const set = [...new Set(labels.filter((l) => l.length >= 4))];
  return {
    empty: set.length === 0,
    matches(text: string): boolean {
      if (set.length === 0 || !text) return false;
      const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
      const lower = words.map((w) => w.toLowerCase());
      for (let i = 0; i < words.length; i += 1) {
        const w = words[i] ?? '';
        const lw = lower[i] ?? '';
        const capital = /^\p{Lu}/u.test(w);
        const prefixable = capital && (!options.prefixNeedsInnerCapital || /\p{Ll}\p{Lu}/u.test(w));
        for (const label of set) {
          if (lw === label) return true;
          if (prefixable && lw.length >= 5 && label.startsWith(lw) && lw.length * 2 >= label.length) return true;
          if (!capital) continue;
          let joined = lw;
          for (let k = 1; k < 4 && i + k < words.length && joined.length < label.length; k += 1) {
            joined += lower[i + k] ?? '';
            if (joined === label) return true;
          }
        }
      }
      return false;
    },
  };
}
