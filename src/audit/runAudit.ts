import { replayDelivery } from '../domain/audit/deliveryReplay.ts';
import { type Divergence, replayRun } from '../domain/audit/runReplay.ts';
import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { readWholeLog } from './logPages.ts';
import { type RunRecord, type VersionDocument, loadRunRecord } from './runRecord.ts';

export interface ReplayReport {
  executionId: string;
  events: number;
  deliveries: number;
  /** The first divergence, with the stream it is in; null when the record replays. */
  divergence: (Divergence & { streamId: string; position: number | null }) | null;
}

/** Replays a run's record: the run itself, then each of its deliveries. */
export function replayRecord(record: RunRecord): ReplayReport {
  const base = { executionId: record.executionId, events: record.events.length, deliveries: record.deliveries.length };
  const run = replayRun({ events: record.events.map((event, i) => ({ event, occurredAt: record.recorded[i]!.metadata.occurredAt })), steps: record.version?.steps ?? null });
  if (run) return { ...base, divergence: { ...run, streamId: record.recorded[0]!.streamId, position: record.recorded[run.index]?.position ?? null } };
  if (!record.version) return { ...base, divergence: { index: 0, eventType: 'ExecutionRequested', reason: 'the version the run executed is not in the log', streamId: record.recorded[0]!.streamId, position: record.recorded[0]!.position } };
  for (const d of record.deliveries) {
    const delivery = replayDelivery(d.events);
    if (delivery) return { ...base, divergence: { ...delivery, streamId: d.recorded[0]!.streamId, position: d.recorded[delivery.index]?.position ?? null } };
  }
  return { ...base, divergence: null };
}

export const replayExecution = async (eventStore: EventStore, executionId: string, versions?: Map<string, VersionDocument | null>) => replayRecord(await loadRunRecord(eventStore, executionId, versions));

/** Every run of a flow requested since `since` (ISO time), found by reading the log. */
export async function replayFlowRuns(eventStore: EventStore, input: { flowId: string; since?: string }): Promise<ReplayReport[]> {
  const ids: string[] = [];
  await readWholeLog(eventStore, (page) => {
    for (const recorded of page) {
      if (recorded.type !== 'ExecutionRequested' || (input.since && recorded.metadata.occurredAt < input.since)) continue;
      const event = decodeRecorded(recorded) as ExecutionEvent;
      if (event.type === 'ExecutionRequested' && event.data.flowId === input.flowId) ids.push(event.data.executionId);
    }
  });
  const reports: ReplayReport[] = [];
  const versions = new Map<string, VersionDocument | null>();
  for (const id of ids) reports.push(await replayExecution(eventStore, id, versions));
  return reports;
}
