import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyExport } from '../../src/audit/exportVerification.ts';
import { replayDelivery } from '../../src/domain/audit/deliveryReplay.ts';
import { replayRun } from '../../src/domain/audit/runReplay.ts';
import { joinStepStarts } from '../../src/domain/execution/joinedStepStarts.ts';
import { decodeEvent } from '../../src/domain/domainEvent.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import type { DeliveryEvent } from '../../src/domain/webhooks/deliveryEvents.ts';

/**
 * The corpus: exports of recorded runs of every kind (written by test/e2e/audit.e2e.spec.ts with
 * SEQFLOW_WRITE_AUDIT_CORPUS). Replaying them in every test run means a change to the engine's
 * rules that would read old histories differently fails here, as Temporal users keep replay tests.
 * Files are added, never rewritten: the older ones hold events of earlier schema versions
 * (ExecutionRequested v3, DeliveryAttemptFinished v2), read through the upcasters; the
 * `*-joined-starts` ones hold completions that tell their block's start (ExecutionStepCompleted v3).
 */
const corpus = path.resolve(import.meta.dirname, '../fixtures/audit-corpus');
const read = (name: string) => readFileSync(path.join(corpus, name), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- export lines of several shapes
const linesOf = (name: string) => read(name).trimEnd().split('\n').map((l) => JSON.parse(l) as any);

function runOf(name: string) {
  const lines = linesOf(name);
  const executionId = lines[0].executionId as string;
  const events = lines
    .filter((l) => l.kind === 'event' && l.streamId === `execution-${executionId}`)
    .map((l) => ({ event: decodeEvent(l.type, l.schemaVersion, l.data) as ExecutionEvent, occurredAt: l.metadata.occurredAt as string }));
  return { events, steps: lines[1].document.steps };
}
const deliveryOf = (name: string) => linesOf(name).filter((l) => l.kind === 'event' && l.streamId.startsWith('delivery-')).map((l) => decodeEvent(l.type, l.schemaVersion, l.data) as DeliveryEvent);

describe('audit replay of the recorded corpus', () => {
  it.each(readdirSync(corpus).filter((f) => f.endsWith('.jsonl')))('%s verifies and replays', (file) => {
    expect(verifyExport(read(file))).toMatchObject({ ok: true, failure: null });
  });

  it('finds a result that is not what the last step produced', () => {
    const run = runOf('pipeline.jsonl');
    const events = run.events.map((e) => (e.event.type === 'ExecutionCompleted' ? { ...e, event: { ...e.event, data: { ...e.event.data, result: { score: 10 } } } } : e));
    expect(replayRun({ ...run, events })).toMatchObject({ eventType: 'ExecutionCompleted', reason: 'the recorded result is not what the last step produced' });
  });

  it('finds a step that completed without having started, and credits that do not match the usage', () => {
    const run = runOf('pipeline.jsonl');
    const unstarted = run.events.filter((e) => !(e.event.type === 'ExecutionStepStarted' && e.event.data.blockName === 'grade'));
    expect(replayRun({ ...run, events: unstarted })).toMatchObject({ eventType: 'ExecutionStepCompleted', reason: "block 'grade' completed without having started" });
    const overcharged = run.events.map((e) => (e.event.type === 'CreditsConsumed' ? { ...e, event: { ...e.event, data: { ...e.event.data, tokens: 99 } } } : e));
    expect(replayRun({ ...run, events: overcharged })).toMatchObject({ eventType: 'ExecutionCompleted', reason: "block 'grade' used 15 tokens but was charged 99" });
  });

  it("reads a completion that tells its block's start as the start and the completion, and finds such a start after the block completed", () => {
    const run = runOf('pipeline.jsonl');
    const { events } = run;
    // Each block's start joined into its completion, as a run records it now.
    const joined = joinStepStarts(events.map(({ event, occurredAt }) => ({ event, at: occurredAt }))).map(({ event, at }) => ({ event, occurredAt: at }));
    expect(joined.length).toBeLessThan(events.length);
    expect(replayRun({ ...run, events: joined })).toBeNull();
    const completedGrade = joined.findIndex((e) => e.event.type === 'ExecutionStepCompleted' && e.event.data.blockName === 'grade');
    const again = [...joined.slice(0, completedGrade + 1), joined[completedGrade]!, ...joined.slice(completedGrade + 1)];
    expect(replayRun({ ...run, events: again })).toMatchObject({ index: completedGrade + 1, reason: "block 'grade' started again after it completed" });
  });

  it('finds a resume that does not answer its pause, and anything after the end', () => {
    const run = runOf('tools.jsonl');
    const forged = run.events.map((e) => (e.event.type === 'ExecutionResumed' ? { ...e, event: { ...e.event, data: { ...e.event.data, toolCallIds: ['call_9'] } } } : e));
    expect(replayRun({ ...run, events: forged })).toMatchObject({ eventType: 'ExecutionResumed' });
    const afterEnd = [...run.events, run.events.find((e) => e.event.type === 'ExecutionStepStarted')!];
    expect(replayRun({ ...run, events: afterEnd })).toMatchObject({ index: run.events.length, reason: expect.stringMatching(/is completed$/) });
  });

  it("replays an erased tool run (its pause's calls read as none), and still finds a resume of another block", () => {
    const run = runOf('tools.jsonl');
    const end = run.events.at(-1)!;
    const erasure = { event: { type: 'RunDataErased', data: { executionId: end.event.data.executionId, erasedAt: end.occurredAt, reason: 'ticket', trigger: 'request', match: null } } as unknown as ExecutionEvent, occurredAt: end.occurredAt };
    const erased = [...run.events.map((e) => (e.event.type === 'ExecutionPausedForToolCalls' ? { ...e, event: { ...e.event, data: { ...e.event.data, toolCalls: [] } } } : e)), erasure];
    expect(replayRun({ ...run, events: erased })).toBeNull();
    const forged = erased.map((e) => (e.event.type === 'ExecutionResumed' ? { ...e, event: { ...e.event, data: { ...e.event.data, blockName: 'other' } } } : e));
    expect(replayRun({ ...run, events: forged })).toMatchObject({ eventType: 'ExecutionResumed' });
  });

  it('finds delivery attempts that break the retry policy', () => {
    const events = deliveryOf('job-dead-letter.jsonl');
    expect(replayDelivery(events)).toBeNull();
    const early = events.map((e) => (e.type === 'DeliveryAttemptStarted' && e.data.attempt === 3 ? { ...e, data: { ...e.data, startedAt: '2026-01-01T00:00:01.000Z' } } : e));
    expect(replayDelivery(early)).toMatchObject({ eventType: 'DeliveryAttemptStarted', reason: expect.stringMatching(/not due before/) });
    const lucky = events.map((e) => (e.type === 'DeliveryAttemptFinished' && e.data.attempt === 2 ? { ...e, data: { ...e.data, outcome: 'succeeded' as const, nextAttemptAt: null } } : e));
    expect(replayDelivery(lucky)).toMatchObject({ reason: 'outcome succeeded does not follow the retry policy for status 503 at attempt 2' });
    const seventh = [...events, { type: 'DeliveryAttemptStarted' as const, data: { deliveryId: events[0]!.data.deliveryId, attempt: 7, startedAt: '2027-01-01T00:00:00.000Z' } }];
    expect(replayDelivery(seventh)).toMatchObject({ eventType: 'DeliveryAttemptStarted', reason: expect.stringMatching(/dead_letter/) });
  });
});
