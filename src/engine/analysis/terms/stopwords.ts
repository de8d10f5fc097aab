/**
 * Stop words: the one list per language that every tokenizer uses (the term analyser, the word tokens of
 * Optimize's relevance test and of the extractive writer, the archive's search terms).
 *
 * English is wink's own list (the `isStopWord` feature of wink-eng-lite-web-model that `its.stopWordFlag` reads,
 * copied below so that tokenizers without a wink instance use the same words; test/engine/analysis/stopwords.test.ts
 * checks the copy against the installed model) plus the few web-filler words of EXTRA_EN_STOP_WORDS. The other
 * lists are deliberately short (articles, pronouns, prepositions, conjunctions, auxiliaries) because a missing stop
 * word only adds a weak term, while a wrong one hides a real term. That is why they are not the long lists of
 * stopwords-iso, which count `computer`, `information`, `home`, `best` and `free` (English) or `Mensch`, `Jahr` and
 * `gut` (German) as stop words.
 */

const words = (s: string): ReadonlySet<string> => new Set(s.split(/\s+/).filter((w) => w.length > 0));

/** wink-eng-lite-web-model's stop words (the ones made of letters; it also flags `etc.`, `i.e.` and `inc.`). */
export const WINK_EN_STOP_WORDS = words(`
  a about above across after afterwards again against all almost alone along already also although always am
  among amongst amount an and another any anyhow anyone anything anyway anywhere are around as at back be became
  because become becomes becoming been before beforehand behind being below beside besides between beyond both
  bottom but by call can cannot could did do does doing done down due during each eight either eleven else
  elsewhere empty enough etc even ever every everyone everywhere except few fifteen fifty first five for former
  formerly forty four from front full further get give go had has have he hence her here hereafter hereby herein
  hereupon hers herself him himself his how however hundred i ie if in inc indeed into is it its itself just keep
  last latter latterly least less made make many may me meanwhile might mine more moreover most mostly move much
  must my myself name namely neither never nevertheless next nine no nobody none nor not nothing now nowhere of
  off often on once one only onto or other otherwise our ours ourselves out over own part per perhaps please put
  quite rather re really regarding same say see seem seemed seeming seems serious seven several she should show
  side since six sixty so some somehow someone something sometime sometimes somewhere still such take ten than
  that the their them themselves then thence there thereafter thereby therefore therein these they third this
  those though three through throughout thru thus to together too top toward towards twelve twenty two under
  unless until up upon us used using various very via was we well were what whatever when whence whenever where
  whereas whereby wherein wherever whether which while who whoever whole whom whose why will with within without
  would yet you your yours yourself yourselves
`);

/** Added to wink's list: filler that wink treats as content but that never describes a topic, and function words it misses. */
export const EXTRA_EN_STOP_WORDS = words(`
  got gets getting going gonna thing things lot lots others like likes let lets yes ok okay oh etc eg ie vs versus
  really actually basically simply maybe perhaps anyway also just quite rather pretty especially
  according including regarding said says having theirs shall need needs makes
  https http www com html
`);

/**
 * What is left of an English contraction by a tokenizer that splits words at apostrophes (`don't` -> `don` `t`,
 * `we'll` -> `we` `ll`): never a term.
 */
export const EN_CONTRACTION_PIECES = words('s t d ll m re ve');

const EN_STOP_WORDS: ReadonlySet<string> = new Set([...WINK_EN_STOP_WORDS, ...EXTRA_EN_STOP_WORDS]);

const STOP_WORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  en: EN_STOP_WORDS,
  de: words(`
    der die das den dem des ein eine einer eines einem einen und oder aber doch sondern denn dass daß wenn als wie
    ob weil da so zu zum zur im in ins am an auf aus bei mit nach von vom vor für fur über unter um durch gegen ohne
    bis seit zwischen ich du er sie es wir ihr mich dich sich uns euch mir dir ihm ihn ihnen mein meine dein deine
    sein seine ihre unser unsere euer eure ist sind war waren bin bist seid sein wird werden wurde wurden hat haben
    hatte hatten kann können muss müssen soll sollen will wollen darf dürfen mag nicht kein keine keinen auch noch nur
    schon sehr mehr dann hier dort was wer wo wann warum dies diese dieser dieses diesem diesen jede jeder jedes man
    sowie bzw etwa beim alle allem allen aller alles andere anderen also ja nein
  `),
  fr: words(`
    le la les l un une des du de d au aux et ou mais donc or ni car que qu qui quoi dont où ce cet cette ces c
    je j tu il elle on nous vous ils elles me m te t se s lui leur leurs mon ma mes ton ta tes son sa ses notre nos
    votre vos y en ne n pas plus est sont été être était étaient a ai as avons avez ont avait avoir fait faire
    dans sur sous avec sans pour par chez entre vers depuis pendant comme si tout tous toute toutes très aussi bien
    peut peuvent cela ça ceci celui celle ceux leurs autre autres même déjà encore
  `),
  es: words(`
    el la los las lo un una unos unas y e o u pero sino que qué quien quién cual cuál cuando donde como cómo de del
    al a en con sin por para sobre entre hasta desde hacia según yo tú él ella nosotros vosotros ellos ellas me te se
    nos os le les mi mis tu tus su sus nuestro nuestra es son era eran fue fueron ser estar está están estaba ha han
    he has había haber hay no sí si ya muy más menos también tan este esta estos estas ese esa esos esas aquel todo
    todos toda todas otro otra otros otras cada puede pueden sea
  `),
  it: words(`
    il lo la i gli le l un uno una e ed o ma però che chi cui di del dello della dei degli delle d a al allo
    alla ai agli alle all da dal dallo dalla dai dagli dalle in nel nello nella nei negli nelle nell con su sul sullo
    sulla sui sugli sulle per tra fra io tu lui lei noi voi loro mi ti si ci vi ne mio mia miei mie tuo tua suo sua
    suoi sue nostro nostra è sono era erano essere stato stata ha hanno ho hai avere aveva non più molto anche come
    se questo questa questi queste quello quella tutto tutti tutta tutte altro altri può possono c
  `),
  nl: words(`
    de het een en of maar dat die dit deze wat wie waar wanneer hoe als dan van in op aan met voor naar bij uit
    over onder door tot om tegen zonder tussen ik jij je u hij zij ze wij we jullie mij me hem haar ons hun mijn
    jouw zijn is was waren ben bent wordt worden werd werden heeft hebben had hadden kan kunnen moet moeten zal
    zullen wil niet geen ook nog al wel zeer heel meer er hier daar zo te
  `),
  pt: words(`
    o a os as um uma uns umas e ou mas porém que quem qual quando onde como de do da dos das d ao aos à às em no na
    nos nas num numa com sem por pelo pela pelos pelas para sobre entre até desde eu tu ele ela nós vós eles elas
    me te se lhe lhes meu minha meus minhas seu sua seus suas nosso nossa é são era eram foi foram ser estar está
    estão estava tem têm ter havia há não sim já muito mais menos também tão este esta estes estas esse essa esses
    essas aquele aquela isso isto todo todos toda todas outro outra outros outras cada pode podem
  `),
  // Chinese function characters; Japanese is handled mostly by the all-hiragana rule in tokenize.ts.
  zh: words(
    '的 了 是 在 和 有 我 你 他 她 它 这 那 也 就 都 与 及 等 对 而 被 从 把 之 或 其 但 将 还 又 很 个 们 吗 呢 吧 啊',
  ),
  ja: words('こと もの ため よう これ それ あれ どれ ここ そこ 等 及び 又は'),
};

/** Elided articles and pronouns that Intl.Segmenter keeps glued to the next word (`l'homme`, `dell'anno`). */
export const ELISIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  fr: words(`l d j m n s t c qu jusqu lorsqu puisqu quoiqu`),
  it: words(`l d dell all dall nell sull un quell c`),
  ca: words(`l d s n m t`),
};

const EMPTY: ReadonlySet<string> = new Set();

/** The stop-word set for a primary language subtag (empty when we have none, as for `und`). */
export function stopWordsFor(language: string): ReadonlySet<string> {
  return STOP_WORDS[language] ?? EMPTY;
}
