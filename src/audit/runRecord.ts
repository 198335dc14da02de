import { deliveryIdFor } from '../commands/deliveryCommands.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { type ExecutionEvent, executionStream, webhookEvents } from '../domain/execution/executionEvents.ts';
import type { StoredStep } from '../domain/flows/flowDefinition.ts';
import { flowStream } from '../domain/flows/flowEvents.ts';
import { testRunStream } from '../domain/testing/testRunEvents.ts';
import { backtestStream } from '../domain/backtests/backtestEvents.ts';
import type { DeliveryEvent } from '../domain/webhooks/deliveryEvents.ts';
import { deliveryStream } from '../domain/webhooks/deliveryEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore.ts';

/** The version a run executed, as published (or a test run's draft snapshot). */
export interface VersionDocument {
  versionId: string;
  number: number | null;
  name: string | null;
  steps: StoredStep[];
}

/** Everything the log holds about one run: its stream, the version it ran, its test run (or the backtest that pinned its draft), its deliveries. */
export interface RunRecord {
  executionId: string;
  recorded: RecordedEvent[];
  events: ExecutionEvent[];
  version: VersionDocument | null;
  testRun: RecordedEvent[];
  /** A backtest replay of a draft: the backtest's stream, whose BacktestStarted holds the draft snapshot. */
  backtest: RecordedEvent[];
  deliveries: { deliveryId: string; recorded: RecordedEvent[]; events: DeliveryEvent[] }[];
}

/**
 * Reads a run's record from the log alone (EXECUTION_NOT_FOUND for an unknown run). `versions`
 * keeps the published versions already read (by id; they never change), so a replay of many runs
 * of one flow reads the flow's stream once.
 */
export async function loadRunRecord(eventStore: EventStore, executionId: string, versions: Map<string, VersionDocument | null> = new Map()): Promise<RunRecord> {
  const recorded = await eventStore.readStream(executionStream(executionId));
  if (recorded.length === 0) throw new ApiError('EXECUTION_NOT_FOUND', `No run ${executionId}`);
  const events = recorded.map((r) => decodeRecorded(r) as ExecutionEvent);
  const requested = events[0]?.type === 'ExecutionRequested' ? events[0].data : null;
  const testRun = requested?.testRunId ? await eventStore.readStream(testRunStream(requested.testRunId)) : [];
  const backtest = requested?.backtestId && requested.versionId.startsWith('draft:') ? await eventStore.readStream(backtestStream(requested.backtestId)) : [];
  const deliveries = [];
  for (const event of webhookEvents) {
    const deliveryId = deliveryIdFor(executionId, event);
    const stream = await eventStore.readStream(deliveryStream(deliveryId));
    if (stream.length > 0) deliveries.push({ deliveryId, recorded: stream, events: stream.map((r) => decodeRecorded(r) as DeliveryEvent) });
  }
  let version: VersionDocument | null = null;
  if (requested) {
    // A draft snapshot belongs to its test run alone; a published version is the same for every run.
    const cached = requested.versionId.startsWith('draft:') ? undefined : versions.get(requested.versionId);
    version = cached !== undefined ? cached : await versionOf(eventStore, requested.flowId, requested.versionId, [...testRun, ...backtest.slice(0, 1)]);
    if (!requested.versionId.startsWith('draft:')) versions.set(requested.versionId, version);
  }
  return { executionId, recorded, events, version, testRun, backtest, deliveries };
}

/** The published version by id from the flow's stream, or the draft snapshot a test run or a backtest pinned. */
async function versionOf(eventStore: EventStore, flowId: string, versionId: string, pinnedBy: RecordedEvent[]): Promise<VersionDocument | null> {
  if (versionId.startsWith('draft:')) {
    const started = pinnedBy.map(decodeRecorded).find((e) => e.type === 'TestRunStarted' || e.type === 'BacktestStarted');
    const target = started?.type === 'TestRunStarted' || started?.type === 'BacktestStarted' ? started.data.target : undefined;
    return target?.kind === 'draft' ? { versionId, number: null, name: null, steps: target.steps } : null;
  }
  for (const recorded of await eventStore.readStream(flowStream(flowId))) {
    if (recorded.type !== 'FlowVersionPublished') continue;
    const event = decodeRecorded(recorded);
    if (event.type === 'FlowVersionPublished' && event.data.versionId === versionId) return { versionId, number: event.data.number, name: event.data.name, steps: event.data.steps };
  }
  return null;
}
