import type { Kysely } from 'kysely';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { type RunSelector, selects } from '../domain/privacy/runSelector.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

const PAGE = 200;

/**
 * An organization's runs (not yet erased) whose input the selector means. The input is sealed in the
 * log, so each run's first event is read and opened: the cost grows with the organization's runs
 * (one read per run, in pages of 200), which is why erasure by content is a CLI command, not an API call.
 */
export async function findRunsToErase(deps: { db: Kysely<ReadModels>; eventStore: EventStore }, organizationId: string, selector: RunSelector) {
  const found: { executionId: string; flowId: string; createdAt: string; status: string }[] = [];
  let after = '';
  for (;;) {
    const page = await deps.db
      .selectFrom('runs')
      .select(['execution_id', 'flow_id', 'created_at', 'status'])
      .where('organization_id', '=', organizationId)
      .where('data_erased_at', 'is', null)
      .where('execution_id', '>', after)
      .orderBy('execution_id')
      .limit(PAGE)
      .execute();
    const firsts = await Promise.all(page.map((row) => deps.eventStore.readStream(executionStream(row.execution_id), { maxCount: 1 })));
    for (const [i, row] of page.entries()) {
      const first = firsts[i]![0];
      const event = first ? decodeRecorded(first) : undefined;
      if (event?.type === 'ExecutionRequested' && selects(selector, event.data)) {
        found.push({ executionId: row.execution_id, flowId: row.flow_id, createdAt: row.created_at.toISOString(), status: row.status });
      }
    }
    if (page.length < PAGE) return found;
    after = page.at(-1)!.execution_id;
  }
}
