import type { Kysely } from 'kysely';
import { apiKeyIdIn } from '../domain/apiKeys/apiKeyFormat.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { idempotencyKeyHash, idempotencyKeyStream } from '../domain/idempotency/idempotencyKeyEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** The projects an idempotency key is looked for in, at most (keys are scoped to a project). */
const PROJECTS_SEARCHED = 1000;
/** Streams read at once while looking. */
const READS_AT_ONCE = 16;

export type RunSearchMatch =
  | { kind: 'run'; executionId: string; via: 'executionId' | 'idempotencyKey'; projectId: string | null; project: string | null }
  | { kind: 'apiKey'; apiKeyId: string; environment: string; projectId: string; project: string; revoked: boolean };

/**
 * What an operator pastes into the console's search, found: an execution id (its run), an API key
 * (its id, its displayed prefix `sf_live_<id>` or the whole key: only the id is used), or an
 * Idempotency-Key a caller sent (the runs its answers named, in every project it was used in). Keys
 * are stored hashed, so the key is hashed here and its streams are read; nothing is written.
 */
export async function searchRuns(deps: { db: Kysely<ReadModels>; eventStore: EventStore }, text: string): Promise<RunSearchMatch[]> {
  const query = text.trim();
  if (query === '') return [];
  const [byExecution, byApiKey, byIdempotency] = await Promise.all([runById(deps, query), apiKeyOf(deps.db, query), runsByIdempotencyKey(deps, query)]);
  return [...byExecution, ...byApiKey, ...byIdempotency];
}

async function runById({ db, eventStore }: { db: Kysely<ReadModels>; eventStore: EventStore }, executionId: string): Promise<RunSearchMatch[]> {
  if (executionId.length > 200 || !(await eventStore.streamExists(executionStream(executionId)))) return [];
  const row = await db.selectFrom('runs as r').innerJoin('projects as p', 'p.id', 'r.project_id').innerJoin('organizations as o', 'o.id', 'r.organization_id').select(['r.project_id', 'p.slug', 'o.slug as org']).where('r.execution_id', '=', executionId).executeTakeFirst();
  return [{ kind: 'run', executionId, via: 'executionId', projectId: row?.project_id ?? null, project: row ? `${row.org}/${row.slug}` : null }];
}

async function apiKeyOf(db: Kysely<ReadModels>, text: string): Promise<RunSearchMatch[]> {
  const keyId = apiKeyIdIn(text);
  if (!keyId) return [];
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('projects as p', 'p.id', 'k.project_id')
    .innerJoin('organizations as o', 'o.id', 'k.organization_id')
    .select(['k.key_id', 'k.environment', 'k.project_id', 'k.revoked_at', 'p.slug', 'o.slug as org'])
    .where('k.key_id', '=', keyId)
    .executeTakeFirst();
  return row ? [{ kind: 'apiKey', apiKeyId: row.key_id, environment: row.environment, projectId: row.project_id, project: `${row.org}/${row.slug}`, revoked: row.revoked_at !== null }] : [];
}

async function runsByIdempotencyKey({ db, eventStore }: { db: Kysely<ReadModels>; eventStore: EventStore }, key: string): Promise<RunSearchMatch[]> {
  // Keys are 1-255 characters (src/runs/answerOnce.ts): anything longer was never accepted as one.
  if (key.length > 255) return [];
  const keyHash = idempotencyKeyHash(key);
  const projects = await db.selectFrom('projects as p').innerJoin('organizations as o', 'o.id', 'p.organization_id').select(['p.id', 'p.slug', 'o.slug as org']).orderBy('p.created_at', 'desc').limit(PROJECTS_SEARCHED).execute();
  const found: RunSearchMatch[] = [];
  for (let i = 0; i < projects.length; i += READS_AT_ONCE) {
    const batch = projects.slice(i, i + READS_AT_ONCE);
    const streams = await Promise.all(batch.map((p) => eventStore.readStream(idempotencyKeyStream(p.id, keyHash))));
    streams.forEach((events, j) => {
      const project = batch[j]!;
      const executionIds = new Set(
        events.map(decodeRecorded).flatMap((e) => (e.type === 'IdempotentResponseRecorded' && e.data.executionId ? [e.data.executionId] : [])),
      );
      for (const executionId of executionIds) found.push({ kind: 'run', executionId, via: 'idempotencyKey', projectId: project.id, project: `${project.org}/${project.slug}` });
    });
  }
  return found;
}
