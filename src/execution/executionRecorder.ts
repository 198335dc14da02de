import { randomUUID } from 'node:crypto';
import { appendWithRetry } from '../eventstore/streams.ts';
import { encodeEvent } from '../domain/domainEvent.ts';
import { type EventMetadata, type EventOrigin, originMarks } from '../domain/events/eventMetadata.ts';
import { type ExecutionState, type ResumeRequest, execution } from '../domain/execution/execution.ts';
import { type ExecutionEvent, executionStream, runLateChargesStream } from '../domain/execution/executionEvents.ts';
import { joinStepStarts } from '../domain/execution/joinedStepStarts.ts';
import { type EventStore, WrongExpectedRevision } from '../eventstore/eventStore.ts';
import type { ExecutionUpdates } from './executionUpdates.ts';
import type { RecordedRunObserver } from '../observability/runMetrics.ts';
import type { RetryWaits } from '../supervision/retrying.ts';

/**
 * Writes one run's events to `execution-<id>`. The engine is that stream's only writer while it
 * runs, so the recorder keeps the revision itself and appends in order (parallel blocks queue up
 * here) with it as the expected revision: a second writer would be refused rather than interleaved.
 *
 * `record` is durable and waits for its append; `note` neither waits nor is durable by itself: its
 * events go with the next append (the next durable record makes them durable too, as the log is
 * flushed in order). Appends are combined: everything noted or recorded while one append is in
 * flight goes in the next one, so a run makes about one round trip per durable fact rather than one
 * per event. Noted events wait for the rest of the turn, or with `lingerMs` for the run's next record
 * (at most that long, then they go on their own): a run whose blocks answer quickly is one append. A
 * failed append that carried noted events breaks the recorder (the engine went on as if they were
 * written): every later record fails with the same error, so no run's history has a gap.
 *
 * An append refused because the stream moved on (another worker took the job over, a cancel) still
 * charges the model calls it carried: the provider billed them whoever won, so their
 * `CreditsConsumed` go to the run's late-charges stream before the refusal is answered.
 */
type Command = Parameters<typeof execution.decide>[0];

interface Waiter {
  resolve: (position: number) => void;
  reject: (error: unknown) => void;
}
/** A command with when the engine noted or recorded it: its events' `occurredAt`, whenever their append goes out. */
interface Stamped {
  command: Command;
  at: string;
}
interface Pending {
  commands: Stamped[];
  durable: boolean;
  noted: boolean;
  waiters: Waiter[];
}

/** Each command decided on the state the ones before it left: the events (each with its command's time), and the state after them all. */
function decideInOrder(commands: Stamped[], state: ExecutionState) {
  let next = state;
  const decided = commands.flatMap(({ command, at }) => {
    const out = execution.decide(command, next);
    next = out.reduce(execution.evolve, next);
    return out.map((event) => ({ event, at }));
  });
  return { decided, next };
}

/** What a recorder appends with, and who it tells. */
export interface RecorderDependencies {
  eventStore: EventStore;
  now: () => Date;
  /** Told of every append (in-process /step readers). */
  updates?: ExecutionUpdates;
  runMetrics?: RecordedRunObserver;
  /** This process's runner lease, named in every event it writes for a run (runnerLease.ts). */
  runner?: string;
  /** How its appends' retries wait: real time unless given (a simulation's). */
  retryWaits?: RetryWaits;
}

const fresh = (): Pending => ({ commands: [], durable: false, noted: false, waiters: [] });

export function createExecutionRecorder(
  deps: RecorderDependencies,
  executionId: string,
  origin: EventOrigin,
  /** Where an existing run's stream stands, for a resume. */
  from: { state: ExecutionState; revision: number } = { state: execution.initialState(), revision: -1 },
  /** How long noted events may wait for the next record (0: only for the rest of the turn). */
  { lingerMs }: { lingerMs: number } = { lingerMs: 0 },
) {
  const streamId = executionStream(executionId);
  let state: ExecutionState = from.state;
  let revision = from.revision;
  let position = 0;
  // Kept as they went out; paired up only when asked (rarely: a job's acceptance), not on every append.
  let lastAppend: { decided: { event: ExecutionEvent }[]; toAppend: { metadata: EventMetadata }[] } = { decided: [], toAppend: [] };
  let pending = fresh();
  let flushing = false;
  let cancelLinger: (() => void) | undefined;
  let broken: { error: unknown } | undefined;

  const metadata = { correlationId: executionId, causationId: null, principal: origin.principal, ...originMarks(origin), ...(deps.runner === undefined ? {} : { runner: deps.runner }) };

  async function appendNow(commands: Stamped[], durability: 'durable' | 'deferred') {
    const { decided: apart, next } = decideInOrder(commands, state);
    // A block's start still waiting here goes in its completion's event (joinedStepStarts.ts).
    const decided = joinStepStarts(apart);
    // A noted event waits for the next append; it keeps the time it was noted (a step's waterfall is drawn from it).
    const toAppend = decided.map(({ event, at }) => ({ id: randomUUID(), ...encodeEvent(event), metadata: { ...metadata, occurredAt: at } }));
    const result = await appendWithRetry(deps.eventStore, streamId, toAppend, revision === -1 ? 'no_stream' : revision, { durability }, deps.retryWaits);
    revision = result.nextExpectedRevision;
    position = result.position;
    state = next;
    lastAppend = { decided, toAppend };
    deps.updates?.notify(executionId);
    deps.runMetrics?.recorded(decided.map((d) => d.event), next);
  }

  /** The charges of an append the stream refused, in the late-charges stream (a failure there leaves the refusal to answer for it). */
  async function chargeRefused(commands: Stamped[]) {
    const charges = commands.flatMap(({ command, at }) => (command.type === 'Record' && command.event.type === 'CreditsConsumed' ? [{ id: randomUUID(), ...encodeEvent(command.event), metadata: { ...metadata, occurredAt: at } }] : []));
    if (charges.length > 0) await appendWithRetry(deps.eventStore, runLateChargesStream(executionId), charges, 'any', undefined, deps.retryWaits).catch(() => undefined);
  }

  /** Appends what is pending, then what gathered meanwhile, until nothing is left. */
  async function flush() {
    while (pending.commands.length > 0) {
      const batch = pending;
      pending = fresh();
      try {
        await appendNow(batch.commands, batch.durable ? 'durable' : 'deferred');
        for (const waiter of batch.waiters) waiter.resolve(position);
      } catch (error) {
        if (error instanceof WrongExpectedRevision) await chargeRefused(batch.commands);
        for (const waiter of batch.waiters) waiter.reject(error);
        if (batch.noted) {
          broken = { error };
          if (error instanceof WrongExpectedRevision) await chargeRefused(pending.commands);
          for (const waiter of pending.waiters) waiter.reject(error);
          pending = fresh();
        }
      }
    }
    flushing = false;
  }

  /** `record`: durable, flushed now; `note`: with the next append, or after the linger; `noteSoon`: a note flushed at the end of this turn whatever the linger. */
  function enqueue(commands: Command[], how: 'record' | 'note' | 'noteSoon'): Promise<number> {
    const at = deps.now().toISOString();
    if (broken) {
      const { error } = broken;
      const charged = error instanceof WrongExpectedRevision ? chargeRefused(commands.map((command) => ({ command, at }))) : Promise.resolve();
      return charged.then(() => Promise.reject(error));
    }
    const appended = new Promise<number>((resolve, reject) => pending.waiters.push({ resolve, reject }));
    pending.commands.push(...commands.map((command) => ({ command, at })));
    if (how === 'record') pending.durable = true;
    else pending.noted = true;
    if (flushing) return appended; // the append in flight is followed by one with these
    if (how === 'record') startFlush();
    else if (how === 'noteSoon' && lingerMs > 0) {
      cancelLinger?.();
      cancelLinger = later(setImmediate(startFlush), clearImmediate);
    } else if (!cancelLinger) {
      cancelLinger = lingerMs > 0 ? later(setTimeout(startFlush, lingerMs), clearTimeout) : later(setImmediate(startFlush), clearImmediate);
    }
    return appended;
  }

  function startFlush() {
    cancelLinger?.();
    flushing = true;
    void flush();
  }

  /** The way to cancel a scheduled flush; once it has started (or been cancelled), none is scheduled. */
  function later<H>(handle: H, clear: (handle: H) => void) {
    return () => {
      clear(handle);
      cancelLinger = undefined;
    };
  }

  const records = (events: ExecutionEvent[]) => events.map((event) => ({ type: 'Record' as const, event }));
  return {
    record: (...events: ExecutionEvent[]) => enqueue(records(events), 'record'),
    /** Not awaited: a failure surfaces at the next record. */
    note: (...events: ExecutionEvent[]) => void enqueue(records(events), 'note').catch(() => undefined),
    /**
     * A note whose append is awaited (not durable), and goes at the end of this turn whatever the
     * linger: the run's first event, before the run is said to have started. A run is in the log
     * (where the interrupted-run sweep finds it, and a refused end is recorded in its place) before
     * its first model call answers, not only with its first record.
     */
    noteAndWait: (...events: ExecutionEvent[]) => enqueue(records(events), 'noteSoon'),
    /**
     * Accepts a caller's tool results for the recorded pause (the decider checks them): appended at
     * once (not waiting for the linger: the append decides a race for the pause before any model call
     * is made) without waiting for the disk; it is durable with the run's next record.
     */
    resume: (request: ResumeRequest, flowId: string) => {
      const appended = enqueue([{ type: 'Resume', data: request, flowId }], 'note');
      if (!flushing) startFlush();
      return appended;
    },
    /**
     * The last resort when the run's end could not be recorded: a fixed-size RUN_RECORD_FAILED
     * failure in an append of its own, after the last events that were written (whatever was pending
     * or broke the recorder is dropped: it may be what the log refused). Answers the failure and its
     * position; throws (the decider) unless the written events leave the run running, and when this
     * append fails too.
     */
    async recordUnrecordedEnd(message: string, durationMs: number) {
      pending = fresh();
      cancelLinger?.();
      await appendNow([{ command: { type: 'RecordUnrecordedEnd', data: { message, durationMs } }, at: deps.now().toISOString() }], 'durable');
      return { event: lastAppend.decided.at(-1)!.event, position };
    },
    state: () => state,
    revision: () => revision,
    streamId,
    position: () => position,
    /** The events of the last append, as written (with their metadata). */
    lastAppended: () => lastAppend.decided.map(({ event }, i) => ({ event, metadata: lastAppend.toAppend[i]!.metadata })),
  };
}

export type ExecutionRecorder = ReturnType<typeof createExecutionRecorder>;
