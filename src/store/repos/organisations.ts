import { randomUUID } from 'node:crypto';
import type { Db } from '../db.ts';
import type { OrganisationsTable, Plan, SubscriptionStatus } from '../schema.ts';

export type OrganisationRow = OrganisationsTable;

export async function createOrganisation(
  db: Db,
  input: { name: string; plan: Plan; subscription: SubscriptionStatus },
  now: number,
): Promise<OrganisationRow> {
  const row: OrganisationRow = {
    id: randomUUID(),
    name: input.name,
    plan: input.plan,
    subscription_status: input.subscription,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('organisations').values(row).execute();
  return row;
}

export async function getOrganisation(db: Db, id: string): Promise<OrganisationRow | undefined> {
  return db.selectFrom('organisations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateOrganisation(
  db: Db,
  id: string,
  patch: { plan?: Plan; subscription?: SubscriptionStatus },
  now: number,
): Promise<OrganisationRow | undefined> {
  return db
    .updateTable('organisations')
    .set({
      ...(patch.plan ? { plan: patch.plan } : {}),
      ...(patch.subscription ? { subscription_status: patch.subscription } : {}),
      updated_at: now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function listOrganisations(db: Db): Promise<OrganisationRow[]> {
  return db.selectFrom('organisations').selectAll().orderBy('created_at').orderBy('id').execute();
}
