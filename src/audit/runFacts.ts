import { sumUsd } from '../domain/models/modelCatalog.ts';
import type { RunRecord } from './runRecord.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';

/**
 * What an auditor asks about a run, derived from its events: credits consumed, tool pauses and
 * resumes, every delivery attempt (with the signing secret's version, never a secret), and the
 * test results of a test run. Verification derives them again and compares. Export format 2 adds
 * each charge's cost in US dollars as recorded (null: no price known) and the run's total; a
 * format 1 file is verified with the facts it was written with.
 */
export function runFacts(record: RunRecord, format: 1 | 2 | 3 = 3) {
  const charges = record.events.flatMap((e) => (e.type === 'CreditsConsumed' ? [e.data] : []));
  const credits = charges.map((c) => ({ blockName: c.blockName, model: c.model, tokens: c.tokens, ...(format >= 2 ? { costUsd: c.costUsd ?? null } : {}) }));
  const cost = format >= 2 ? { costUsd: sumUsd(charges.map((c) => c.costUsd ?? 0)) } : {};
  const toolRounds = record.events.flatMap((e) =>
    e.type === 'ExecutionPausedForToolCalls'
      ? [{ kind: 'paused', blockName: e.data.blockName, iterationsUsed: e.data.iterationsUsed, toolCallIds: e.data.toolCalls.map((c) => c.id) }]
      : e.type === 'ExecutionResumed'
        ? [{ kind: 'resumed', blockName: e.data.blockName, iterationsUsed: e.data.iterationsUsed, toolCallIds: e.data.toolCallIds }]
        : [],
  );
  const deliveries = record.deliveries.map((d) => ({
    deliveryId: d.deliveryId,
    attempts: d.events.flatMap((e) =>
      e.type === 'DeliveryAttemptFinished'
        ? [{ attempt: e.data.attempt, outcome: e.data.outcome, responseStatus: e.data.responseStatus, nextAttemptAt: e.data.nextAttemptAt, durationMs: e.data.durationMs, secretVersions: e.data.secretVersions }]
        : [],
    ),
  }));
  const finished = record.testRun.map(decodeRecorded).find((e) => e.type === 'TestRunFinished');
  const testResults = finished?.type === 'TestRunFinished' ? { passed: finished.data.passed, results: finished.data.results } : null;
  return { credits, tokens: credits.reduce((sum, c) => sum + c.tokens, 0), ...cost, toolRounds, deliveries, testResults };
}
