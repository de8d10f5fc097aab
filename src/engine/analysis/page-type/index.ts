/** Page types (the WCXB benchmark's seven) from what extraction already read; see classify.ts. */
export { classifyFeatures, classifyPage, PAGE_TYPES, type PageType, type PageTypeResult } from './classify.ts';
export { FEATURE_NAMES, pageFeatures } from './features.ts';
export { fitSoftmax, predict, type SoftmaxModel } from './softmax.ts';
export type { PageSignals } from './signals.ts';
