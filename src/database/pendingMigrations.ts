import type { MigrationInfo } from 'kysely';

/** A migration that has not run yet, and what it will do (its module's `summary`). */
export interface PendingMigration {
  name: string;
  summary: string;
}

/** The migrations kysely reports as not executed, in its order, with their summaries. */
export const pendingOf = (infos: readonly MigrationInfo[], modules: Record<string, { summary: string }>): PendingMigration[] =>
  infos.filter((info) => info.executedAt === undefined).map((info) => ({ name: info.name, summary: modules[info.name]?.summary ?? '' }));
