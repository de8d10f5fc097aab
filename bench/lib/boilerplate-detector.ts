/**
 * Planted-boilerplate detector for the content bench's quality phase: page furniture and marketing copy of the
 * researched sites that should never reach a draft written for another client. Each rule names one kind; a
 * sentence may match several. The sample archive plants all of these (navigation, cookie banner, newsletter box,
 * testimonials, coupons, "call us" lines) around its articles, so the goal is 0 matching sentences.
 */

export interface BoilerplateRule {
  name: string;
  test: (sentence: string) => boolean;
}

/** The text outside double quotes (straight or curly): quoted speech may be in the first person. */
export function outsideQuotes(text: string): string {
  return text.replace(/"[^"]*"|“[^”]*”|„[^“”]*[“”]/g, ' ');
}

const rx = (re: RegExp) => (s: string) => re.test(s);

const count = (s: string, re: RegExp) => s.match(re)?.length ?? 0;

/** Whether quotes or brackets are left open or closed without opening (citation markers `[n]` aside). */
export function unbalanced(sentence: string): boolean {
  const s = sentence.replace(/\[\d+\]/g, '');
  if (count(s, /"/g) % 2 !== 0) return true;
  if (count(s, /“/g) !== count(s, /”/g)) return true;
  const pairs: [string, string][] = [
    ['(', ')'],
    ['[', ']'],
    ['{', '}'],
  ];
  for (const [open, close] of pairs) {
    let depth = 0;
    for (const ch of s) {
      if (ch === open) depth++;
      else if (ch === close && --depth < 0) return true;
    }
    if (depth !== 0) return true;
  }
  return false;
}

export const BOILERPLATE_RULES: readonly BoilerplateRule[] = [
  {
    // "I", "we", "our", "us", "my" in the sentence's own voice: another site speaking.
    name: 'first person',
    test: (s) =>
      /(?<![\p{L}\p{N}'’])(?:I|I'm|I’m|I've|I’ve|I'd|I’d|I'll|I’ll|me|my|mine|[Ww]e|[Ww]e're|[Ww]e’re|[Ww]e've|[Ww]e’ve|[Ww]e'll|[Ww]e’ll|[Ww]e'd|[Ww]e’d|us|[Oo]ur|[Oo]urs|[Mm]y)(?![\p{L}\p{N}'’])/u.test(
        outsideQuotes(s),
      ),
  },
  {
    name: 'call to action',
    test: rx(
      /\b(?:call (?:us|now|today|\(?\d{3})|contact us|give us a call|get (?:a|your) (?:free )?(?:quote|estimate)|request (?:a|your) (?:quote|estimate|service|appointment)|book (?:now|online|today|your|an? (?:appointment|visit|service))|schedule (?:now|online|today|your|an? (?:appointment|visit|service))|click here|order now|shop now|buy now|add to cart|don['’]t wait|act now|text us|chat with us|dispatch(?:es|ed)? (?:a|our) (?:tech|plumber))\b/i,
    ),
  },
  {
    name: 'zip code / form prompt',
    test: rx(
      /\b(?:zip ?code|postal code|enter your|your (?:e-?mail|phone|address|name)\b|e-?mail address|phone number|fill (?:out|in) (?:the|this|our) form|submit (?:your|the form|this form|a request)|by submitting|required field)/i,
    ),
  },
  {
    name: 'cookie / newsletter / navigation',
    test: rx(
      /\b(?:we use cookies|cookie (?:policy|settings|preferences|consent)|accept (?:all )?cookies|newsletter|subscribe|unsubscribe|sign (?:up|in)|log ?in|privacy policy|terms of (?:service|use)|all rights reserved|skip to (?:main )?content|back to top|read more(?! than)|follow us|share (?:this|on)|related (?:posts|articles)|previous post|next post|©)/i,
    ),
  },
  {
    name: 'testimonial',
    test: rx(
      /(?:★|⭐|\b\d(?:\.\d)? ?(?:\/ ?5|out of (?:5|five)) stars?\b|\b(?:five|5)[- ]stars?\b|\bhighly recommend|\bverified (?:buyer|customer|review)|(?:^|\s)[—–-] ?\p{Lu}\p{Ll}+ \p{Lu}\.|[”"] ?[—–-] ?\p{Lu}\p{Ll}+|\p{Lu}\p{Ll}+ \p{Lu}\.,? (?:[—–-] ?)?\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)*, (?:TX|Texas|CA|CO|MN)\b)/u,
    ),
  },
  {
    name: 'price / guarantee policy',
    test: rx(
      /\b(?:guarantee[ds]?|money[- ]back|satisfaction|no hidden (?:fees|charges)|price match|upfront (?:pricing|prices)|flat[- ]rate pric|\d+ ?% off|coupons?|discount(?:s|ed)?|promo(?:tion)? code|financing (?:available|options)|free (?:estimates?|quotes?|shipping|trial)|no (?:extra )?charge for (?:nights|weekends))\b/i,
    ),
  },
  { name: 'unbalanced quotes / brackets', test: unbalanced },
];

/** The rules a sentence matches (empty for a clean sentence). */
export function boilerplateHits(sentence: string, rules: readonly BoilerplateRule[] = BOILERPLATE_RULES): string[] {
  return rules.filter((r) => r.test(sentence)).map((r) => r.name);
}
