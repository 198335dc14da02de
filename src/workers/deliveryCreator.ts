import type { Kysely } from 'kysely';
import { deliveryIdFor } from '../commands/deliveryCommands.ts';
import { type CommandDependencies, handleCommand } from '../commands/commandHandler.ts';
import { type ExecutionEvent, executionStream } from '../domain/execution/executionEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import { delivery } from '../domain/webhooks/delivery.ts';
import { deliveryStream } from '../domain/webhooks/deliveryEvents.ts';
import { type RunEnding, webhookPayload } from '../domain/webhooks/webhookPayload.ts';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore.ts';
import type { SupervisedTask } from '../supervision/supervisor.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { failureText } from '../domain/execution/failureMessage.ts';
import { createJobPaths } from '../caches/jobPaths.ts';
import { waitingForOf } from '../domain/execution/waitingFor.ts';
import { type RequestedCallback, callbackOf, createRequestedCallbacks } from './requestedCallbacks.ts';

const REACTOR = 'delivery_creator';

type RunEnd = Extract<ExecutionEvent, { type: 'ExecutionCompleted' | 'ExecutionFailed' }>;
type Waiting = Extract<ExecutionEvent, { type: 'ApprovalRequested' }>;
const CREATE_CONCURRENCY = 16;

/**
 * A reactor on the log: for each terminal event of a /jobs run whose callback subscribes to it (and
 * each approval it waits for, with `flow.waiting`), one DeliveryCreated. It keeps its own checkpoint; a replay after a crash creates nothing twice (the
 * delivery id derives from the run and the event, and creation is idempotent).
 */
export function createDeliveryCreator(options: { db: Kysely<ReadModels>; eventStore: EventStore; commands: CommandDependencies; onCreated: (deliveryId: string) => void; rememberedRequests?: number }) {
  const { db, eventStore, commands } = options;
  const jobPath = createJobPaths(db);

  const requests = createRequestedCallbacks(options.rememberedRequests ?? 10_000);

  /** A run's request read from its stream: for a run whose request this reactor did not see (or no longer remembers). */
  async function requestedFromStream(executionId: string): Promise<RequestedCallback> {
    const [first] = await eventStore.readStream(executionStream(executionId), { maxCount: 1 });
    if (!first) return 'none';
    const requested = decodeRecorded(first);
    return requested.type === 'ExecutionRequested' ? callbackOf(requested, first) : 'none';
  }

  async function handle(recorded: RecordedEvent) {
    if (recorded.type === 'ApprovalRequested') return handleWaiting(recorded);
    if (recorded.type !== 'ExecutionCompleted' && recorded.type !== 'ExecutionFailed') return;
    const ending = decodeRecorded(recorded);
    if (ending.type !== 'ExecutionCompleted' && ending.type !== 'ExecutionFailed') return;
    const callback = requests.get(ending.data.executionId) ?? (await requestedFromStream(ending.data.executionId));
    if (callback !== 'none') await createDelivery(recorded, ending, callback);
    requests.forget(ending.data.executionId);
  }

  /** A run that waits for an approval: `flow.waiting`, once per approval, for a callback that names it. */
  async function handleWaiting(recorded: RecordedEvent) {
    const waiting = decodeRecorded(recorded) as Waiting;
    const callback = requests.get(waiting.data.executionId) ?? (await requestedFromStream(waiting.data.executionId));
    if (callback === 'none' || !callback.callbackEvents.includes('flow.waiting')) return;
    const deliveryId = deliveryIdFor(waiting.data.executionId, `flow.waiting:${waiting.data.blockName}`);
    const waitingFor = waitingForOf(waiting.data, recorded.metadata.occurredAt);
    const durationMs = Math.max(0, Date.parse(recorded.metadata.occurredAt) - Date.parse(callback.requestedAt));
    await create(deliveryId, 'flow.waiting', { executionId: waiting.data.executionId, flowId: callback.flowId }, callback, recorded, durationMs, { event: 'flow.waiting', waitingFor });
  }

  /**
   * A run's end with its result (or its failure's detail) opened: the subscription opens nothing (most runs have no callback, and
   * each opening is a cipher call), so a delivery reads its run's end again, opened.
   */
  async function opened(recorded: RecordedEvent, asHanded: RunEnd): Promise<RunEnd> {
    if (recorded.metadata.sealed !== true) return asHanded;
    const [read] = await eventStore.readStream(recorded.streamId, { fromRevision: recorded.revision, maxCount: 1 });
    const event = read ? decodeRecorded(read) : undefined;
    return event?.type === asHanded.type ? (event as RunEnd) : asHanded;
  }

  async function createDelivery(recorded: RecordedEvent, ending: RunEnd, callback: Exclude<RequestedCallback, 'none'>) {
    const event = ending.type === 'ExecutionCompleted' ? 'flow.completed' : 'flow.failed';
    if (!callback.callbackEvents.includes(event)) return;

    const deliveryId = deliveryIdFor(ending.data.executionId, event);
    const end = await opened(recorded, ending);
    const run: RunEnding = end.type === 'ExecutionCompleted' ? { event: 'flow.completed', result: end.data.result } : { event: 'flow.failed', errorMessage: failureText(end.data), failureReason: end.data.reason };
    await create(deliveryId, event, { executionId: ending.data.executionId, flowId: callback.flowId }, callback, recorded, ending.data.durationMs, run);
  }

  /** One DeliveryCreated (idempotent: its id derives from the run and what it tells). */
  async function create(deliveryId: string, event: RunEnding['event'], of: { executionId: string; flowId: string }, callback: Exclude<RequestedCallback, 'none'>, recorded: RecordedEvent, durationMs: number, run: RunEnding) {
    const { payload, body } = webhookPayload(
      { deliveryId, executionId: of.executionId, flowId: of.flowId, organizationId: callback.organizationId, durationMs, occurredAt: recorded.metadata.occurredAt, ...(callback.schedule ?? {}) },
      run,
      await jobPath(of.flowId, of.executionId),
    );
    await handleCommand(
      commands,
      deliveryStream(deliveryId),
      delivery,
      {
        type: 'CreateDelivery',
        event: {
          type: 'DeliveryCreated',
          data: { deliveryId, organizationId: callback.organizationId, executionId: of.executionId, flowId: of.flowId, event, url: callback.callbackUrl, body, truncated: payload.truncated },
        },
      },
      // The delivery's attempts continue the run's trace.
      { principal: { kind: 'system', id: REACTOR }, correlationId: of.executionId, traceparent: callback.traceparent },
    );
    options.onCreated(deliveryId);
  }

  return {
    /** Subscribes from the reactor's checkpoint; a task for the supervisor, which restarts it when it fails. */
    async start(): Promise<SupervisedTask> {
      await db.insertInto('reactor_checkpoints').values({ name: REACTOR, position: 0 }).onConflict((oc) => oc.column('name').doNothing()).execute();
      const row = await db.selectFrom('reactor_checkpoints').select('position').where('name', '=', REACTOR).executeTakeFirstOrThrow();
      let failure: unknown;
      const subscription = eventStore.subscribe({
        from: Number(row.position),
        openSealed: [],
        handler: async (events) => {
          // Deliveries are independent streams: a batch's are created side by side (16 at a time);
          // the checkpoint moves only once all of them are written.
          for (const recorded of events) {
            if (recorded.type !== 'ExecutionRequested') continue;
            const requested = decodeRecorded(recorded);
            if (requested.type === 'ExecutionRequested') requests.remember(requested, recorded);
          }
          const endings = events.filter((e) => e.type === 'ExecutionCompleted' || e.type === 'ExecutionFailed' || e.type === 'ApprovalRequested');
          for (let i = 0; i < endings.length; i += CREATE_CONCURRENCY) await Promise.all(endings.slice(i, i + CREATE_CONCURRENCY).map(handle));
          await db.updateTable('reactor_checkpoints').set({ position: events.at(-1)!.position }).where('name', '=', REACTOR).execute();
        },
        onError: (error) => (failure = error),
      });
      return {
        done: subscription.done.then(() => {
          if (failure !== undefined) throw failure;
        }),
        stop: () => subscription.stop(),
      };
    },
  };
}
