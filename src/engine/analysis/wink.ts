/**
 * wink-nlp instances for the analysers, all on one copy of the English model per process.
 *
 * wink-eng-lite-web-model's `metaCER()` stringifies its own previous result on every call (its module variable is
 * reassigned), and wink calls it on every load, so each instance made in one process doubles the escaping of that
 * string: the 17th `winkNLP(model)` throws "Invalid string length". The analysers rebuild their instance every
 * thousand pages to keep wink's lexicon cache bounded, so a long-running server got there. The model given to wink
 * here answers the first `metaCER()` result every time, which is what a first load sees.
 */
import { createRequire } from 'node:module';
import type { default as WinkFn, Model, WinkMethods } from 'wink-nlp';

let loaded: { winkNLP: typeof WinkFn; model: Model } | undefined;

/** The wink function and the model, loaded on first use (importing the engine costs nothing until text is analysed). */
function load(): { winkNLP: typeof WinkFn; model: Model } {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const winkNLP = require('wink-nlp') as typeof WinkFn;
    const model = require('wink-eng-lite-web-model') as Model & { metaCER: () => unknown };
    const metaCER: unknown = model.metaCER();
    loaded = { winkNLP, model: { ...model, metaCER: () => metaCER } };
  }
  return loaded;
}

/** A new wink instance running `pipe` (about 0.1-0.3 s); as many as needed, in one process. */
export function createWink(pipe: string[]): WinkMethods {
  const { winkNLP, model } = load();
  return winkNLP(model, pipe);
}
