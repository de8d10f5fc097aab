import type { DraftScoresTable } from '../schema.ts';
import type { TxDb } from '../db.ts';

/** The previous draft score of an optimization, or undefined when its drafts were never scored. */
export type DraftScoreRow = DraftScoresTable;

/**
 * Records `row` as the optimization's last draft score and answers the one it replaces, in the caller's write
 * transaction (so two scores of one run at once each see the other's, in the order they committed).
 */
export async function swapDraftScore(trx: TxDb, row: DraftScoreRow): Promise<DraftScoreRow | undefined> {
  const previous = await trx
    .selectFrom('draft_scores')
    .selectAll()
    .where('optimization_id', '=', row.optimization_id)
    .executeTakeFirst();
  const { optimization_id: _id, ...figures } = row;
  await trx
    .insertInto('draft_scores')
    .values(row)
    .onConflict((oc) => oc.column('optimization_id').doUpdateSet(figures))
    .execute();
  return previous;
}
