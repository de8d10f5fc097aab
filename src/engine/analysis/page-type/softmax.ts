/**
 * A multinomial logistic regression small enough to read: one weight per (type, feature) over standardised features,
 * fitted by full-batch gradient descent with an L2 penalty. It is what turns the named features into scores; the
 * penalty keeps weights small, so a feature that only a few pages of the development set have cannot dominate.
 */

export interface SoftmaxModel {
  classes: readonly string[];
  features: readonly string[];
  /** Per feature: the mean and standard deviation used to standardise it. */
  mean: readonly number[];
  scale: readonly number[];
  /** weights[class][feature]; bias[class]. */
  weights: readonly (readonly number[])[];
  bias: readonly number[];
}

export interface FitOptions {
  l2?: number;
  iterations?: number;
  rate?: number;
}

/** Probabilities per class for one feature vector. */
export function predict(model: SoftmaxModel, x: readonly number[]): number[] {
  const z = model.classes.map((_, c) => {
    let sum = model.bias[c] ?? 0;
    const w = model.weights[c] ?? [];
    for (let f = 0; f < x.length; f++)
      sum += (w[f] ?? 0) * (((x[f] ?? 0) - (model.mean[f] ?? 0)) / (model.scale[f] || 1));
    return sum;
  });
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp(v - max));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / total);
}

/** Fits a model on rows `xs` labelled `ys` (each one of `classes`). Deterministic: same data, same weights. */
export function fitSoftmax(
  xs: readonly (readonly number[])[],
  ys: readonly string[],
  classes: readonly string[],
  features: readonly string[],
  options: FitOptions = {},
): SoftmaxModel {
  const { l2 = 0.01, iterations = 600, rate = 0.5 } = options;
  const n = xs.length;
  const d = features.length;
  const k = classes.length;
  const mean = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const x of xs) for (let f = 0; f < d; f++) mean[f] = (mean[f] ?? 0) + (x[f] ?? 0) / n;
  for (const x of xs) for (let f = 0; f < d; f++) scale[f] = (scale[f] ?? 0) + ((x[f] ?? 0) - (mean[f] ?? 0)) ** 2 / n;
  // A feature constant on the training set (up to rounding) is left unscaled: its weight stays near zero.
  for (let f = 0; f < d; f++) {
    const sd = Math.sqrt(scale[f] ?? 0);
    scale[f] = sd > 1e-6 ? sd : 1;
  }
  const z = xs.map((x) => x.map((v, f) => (v - (mean[f] ?? 0)) / (scale[f] ?? 1)));
  const y = ys.map((c) => classes.indexOf(c));
  const w = Array.from({ length: k }, () => new Array<number>(d).fill(0));
  const b = new Array<number>(k).fill(0);
  for (let it = 0; it < iterations; it++) {
    const gw = Array.from({ length: k }, () => new Array<number>(d).fill(0));
    const gb = new Array<number>(k).fill(0);
    for (let i = 0; i < n; i++) {
      const zi = z[i] as number[];
      const logits = w.map((wc, c) => wc.reduce((s, v, f) => s + v * (zi[f] ?? 0), b[c] ?? 0));
      const max = Math.max(...logits);
      const ex = logits.map((v) => Math.exp(v - max));
      const tot = ex.reduce((a, v) => a + v, 0);
      for (let c = 0; c < k; c++) {
        const err = (ex[c] ?? 0) / tot - (y[i] === c ? 1 : 0);
        gb[c] = (gb[c] ?? 0) + err / n;
        const g = gw[c] as number[];
        for (let f = 0; f < d; f++) g[f] = (g[f] ?? 0) + (err * (zi[f] ?? 0)) / n;
      }
    }
    for (let c = 0; c < k; c++) {
      const wc = w[c] as number[];
      const g = gw[c] as number[];
      for (let f = 0; f < d; f++) wc[f] = (wc[f] ?? 0) - rate * ((g[f] ?? 0) + l2 * (wc[f] ?? 0));
      b[c] = (b[c] ?? 0) - rate * (gb[c] ?? 0);
    }
  }
  return { classes, features, mean, scale, weights: w, bias: b };
}
