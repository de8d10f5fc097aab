/**
 * Code in a page's text. Extracted main text carries `code`/`pre` blocks as plain lines, so code is recognised by
 * its shape, line by line, and cut out before terms are counted: a line is code when it has one strong sign of a
 * program and no sign of a sentence ending in prose. Signs: an assignment or comparison (`x = 1`, `a == b`, `=>`),
 * a statement end (`;`), a brace, a prompt (`>>>`, `$ `, `#include`), a leading keyword of a statement (`import`,
 * `def`, `await`, `return`, `const`, ...), a Python block opener (`if x is None:`), an indented line that is not a
 * sentence, or a call (`put(item)`) on a line
 * of at most eight words that does not end like a sentence.
 *
 * Words met in code are remembered: a capitalised word that the page also uses in its code (`None`, `False`) is a
 * literal or a keyword, never a name.
 */

const KEYWORD_START =
  /^\s*(?:import|from\s+[\w.]+\s+import|def|class|return|await|async|const|let|var|function|print\(|if\s*\(|for\s*\(|while\s*\(|elif|except|try:|raise|yield|public|private|static|package|using\s+[\w.]+;|#include|#!|\$\s|>>>|\.\.\.\s)/;
const ASSIGNMENT = /(?:^|[\w\])'"])\s*(?:[-+*/%|&]?=|==|!=|=>|->|:=)\s*\S/;
const STATEMENT_END = /;\s*$/;
const BRACES = /[{}]/;
const CALL = /[\p{L}\p{N}_]\(/u;
const SENTENCE_END = /[.!?:…]["'”’)]*\s*$/u;
const INDENTED = /^(?: {2,}|\t)\S/;

// A Python block opener (`if result is None:`, `for job in jobs:`); `for example:` has no sign of code.
const BLOCK_OPENER = /^\s*(?:if|elif|while|for|with|except)\b.*:\s*$/;
const CODE_SIGN = /[=()._[\]]|\bis\b|\bin\b/;

/** True when one line of extracted text is code (see the module comment). */
export function isCodeLine(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed.length === 0) return false;
  if (KEYWORD_START.test(line)) return !looksLikeProse(trimmed);
  if (BLOCK_OPENER.test(line) && CODE_SIGN.test(trimmed) && words(trimmed) <= 10) return true;
  if (BRACES.test(trimmed) || STATEMENT_END.test(trimmed)) return !looksLikeProse(trimmed);
  if (ASSIGNMENT.test(trimmed)) return !looksLikeProse(trimmed);
  if (INDENTED.test(line) && !SENTENCE_END.test(trimmed)) return !looksLikeProse(trimmed);
  if (CALL.test(trimmed) && !SENTENCE_END.test(trimmed) && words(trimmed) <= 8) return true;
  return false;
}

function words(s: string): number {
  return s.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;
}

// A sentence of prose: several plain lower-case words in a row and a sentence ending.
function looksLikeProse(s: string): boolean {
  return SENTENCE_END.test(s) && /(?:\b\p{Ll}{2,}\b[,]?\s+){4,}/u.test(s);
}

const CODE_WORD = /[\p{L}_][\p{L}\p{N}_]*/gu;

/** The text with its code lines blanked (line breaks kept) and the words those lines use. */
export function stripCode(text: string): { prose: string; codeWords: Set<string> } {
  const codeWords = new Set<string>();
  if (!/[=;{}()>$#]/.test(text)) return { prose: text, codeWords };
  const lines = text.split('\n');
  let changed = false;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (!isCodeLine(line)) continue;
    for (const m of line.matchAll(CODE_WORD)) codeWords.add(m[0]);
    lines[i] = '';
    changed = true;
  }
  return { prose: changed ? lines.join('\n') : text, codeWords };
}
