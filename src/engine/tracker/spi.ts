/**
 * The Search Presence Index (SPI), 0-100: the share of tracked queries where the brand is present, each weighted by
 * how prominently it is present.
 *
 *   weight(q) = max(positionWeight(q), mentioned(q) ? 0.5 : 0)
 *   positionWeight(q) = position == null ? 0 : max(0.1, 1 - 0.1 * (position - 1))   (1st = 1.0, 2nd = 0.9, ... 10th and
 *                                                                                   beyond = 0.1)
 *   SPI(platform) = 100 * sum(weight over measured queries) / measured
 *   SPI(overall)  = 100 * sum(weight over every measured query-platform pair) / sum(measured)
 *
 * `position` is the rank of the brand's domain among the organic results, or of its first citation in an AI answer;
 * `mentioned` is a brand name (or the domain) in the result titles and snippets, or in the answer text. Only
 * measured queries count in the denominator: a query whose call failed is not a zero, it is reported in `failed`.
 * A platform with no measured query has no SPI (null), and the overall SPI pools only platforms that have one.
 * Scores are rounded to one decimal.
 */

export const MENTION_ONLY_WEIGHT = 0.5;

/** The weight of one measured query, 0 to 1. */
export function queryWeight(position: number | null, mentioned: boolean): number {
  const byPosition = position === null ? 0 : Math.max(0.1, 1 - 0.1 * (position - 1));
  return Math.max(byPosition, mentioned ? MENTION_ONLY_WEIGHT : 0);
}

export const round1 = (n: number): number => Math.round(n * 10) / 10;

/** What one platform's summary contributes: counts over its queries and the weight sum. */
export interface PlatformTally {
  queries_total: number;
  measured: number;
  failed: number;
  present: number;
  mentioned: number;
  cited: number;
  ranked: number;
  position_sum: number;
  weight_sum: number;
}

export interface Denominators {
  /** Queries the project tracks on this platform. */
  queries_tracked: number;
  /** Queries measured successfully: the SPI's denominator. */
  queries_measured: number;
  /** Queries whose call failed: excluded from the denominator. */
  queries_failed: number;
  /** Measured queries where the brand is present (ranked, cited or mentioned). */
  present: number;
  mentioned: number;
  cited: number;
  /** Measured queries where the domain has a position, and their average position. */
  ranked: number;
  average_position: number | null;
}

export function denominators(t: PlatformTally): Denominators {
  return {
    queries_tracked: t.queries_total,
    queries_measured: t.measured,
    queries_failed: t.failed,
    present: t.present,
    mentioned: t.mentioned,
    cited: t.cited,
    ranked: t.ranked,
    average_position: t.ranked > 0 ? round1(t.position_sum / t.ranked) : null,
  };
}

/** A platform's SPI, or null when nothing was measured. */
export function platformSpi(t: Pick<PlatformTally, 'measured' | 'weight_sum'>): number | null {
  return t.measured > 0 ? round1((100 * t.weight_sum) / t.measured) : null;
}

/** Tallies per-query results into a platform's counts. */
export function tally(
  results: ReadonlyArray<{ status: string; position: number | null; brand_mentioned: boolean; brand_cited: boolean }>,
): PlatformTally {
  const t: PlatformTally = {
    queries_total: results.length,
    measured: 0,
    failed: 0,
    present: 0,
    mentioned: 0,
    cited: 0,
    ranked: 0,
    position_sum: 0,
    weight_sum: 0,
  };
  for (const r of results) {
    if (r.status !== 'complete') {
      t.failed++;
      continue;
    }
    t.measured++;
    if (r.brand_mentioned) t.mentioned++;
    if (r.brand_cited) t.cited++;
    if (r.position !== null) {
      t.ranked++;
      t.position_sum += r.position;
    }
    if (r.position !== null || r.brand_mentioned || r.brand_cited) t.present++;
    t.weight_sum += queryWeight(r.position, r.brand_mentioned);
  }
  return t;
}

export interface OverallSpi<P extends string = string> {
  spi: number | null;
  /** Query-platform pairs measured (the denominator) and the platforms pooled. */
  pairs_measured: number;
  pairs_present: number;
  platforms_included: P[];
}

/** The overall SPI over the platforms given (each with its tally); platforms without measurements are left out. */
export function overallSpi<P extends string>(
  platforms: ReadonlyArray<{ platform: P } & Pick<PlatformTally, 'measured' | 'weight_sum' | 'present'>>,
): OverallSpi<P> {
  const used = platforms.filter((p) => p.measured > 0);
  const measured = used.reduce((a, p) => a + p.measured, 0);
  const weight = used.reduce((a, p) => a + p.weight_sum, 0);
  return {
    spi: measured > 0 ? round1((100 * weight) / measured) : null,
    pairs_measured: measured,
    pairs_present: used.reduce((a, p) => a + p.present, 0),
    platforms_included: used.map((p) => p.platform),
  };
}
