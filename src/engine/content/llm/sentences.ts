/** Sentence splitting that keeps citation markers with the sentence they follow. */

const MARKERS_ONLY = /^(?:\s*\[\d+\])+\s*$/;
const LEADING_MARKERS = /^((?:\s*\[\d+\])+)\s*/;

function segmenterFor(language: string): Intl.Segmenter {
  try {
    return new Intl.Segmenter(language, { granularity: 'sentence' });
  } catch {
    return new Intl.Segmenter('en', { granularity: 'sentence' });
  }
}

/**
 * Sentences of one block of text, trimmed. A marker written after the full stop (`fact. [2] Next`) belongs to the
 * sentence before it, not to the next one.
 */
export function splitSentences(text: string, language = 'en'): string[] {
  const out: string[] = [];
  for (const { segment } of segmenterFor(language).segment(text)) {
    let s = segment.trim();
    if (!s) continue;
    const lead = LEADING_MARKERS.exec(s);
    if (lead && out.length > 0) {
      out[out.length - 1] = `${out[out.length - 1]}${lead[1]!.replace(/\s+/g, '')}`;
      s = s.slice(lead[0].length).trim();
      if (!s) continue;
    }
    if (MARKERS_ONLY.test(s) && out.length > 0) {
      out[out.length - 1] = `${out[out.length - 1]}${s.replace(/\s+/g, '')}`;
      continue;
    }
    out.push(s);
  }
  return out;
}
