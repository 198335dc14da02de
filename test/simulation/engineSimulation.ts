import { verifyLog } from '../../src/audit/logVerification.ts';
import type { StoredBlock, StoredStep } from '../../src/domain/flows/flowDefinition.ts';
import { execution } from '../../src/domain/execution/execution.ts';
import { executionStream, runLateChargesStream } from '../../src/domain/execution/executionEvents.ts';
import { decodeRecorded } from '../../src/eventstore/decodeRecorded.ts';
import { WrongExpectedRevision } from '../../src/eventstore/eventStore.ts';
import { loadStream } from '../../src/eventstore/streams.ts';
import type { EngineDependencies } from '../../src/execution/engineDependencies.ts';
import { createExecutionUpdates } from '../../src/execution/executionUpdates.ts';
import { failRun } from '../../src/execution/failRun.ts';
import { acceptJob, prepareExecution, prepareResume } from '../../src/execution/flowEngine.ts';
import type { ExecutionOutcome } from '../../src/execution/runSteps.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import type { EventStore } from '../../src/eventstore/eventStore.ts';
import { faultyConnection } from './faultyConnection.ts';
import { loopTurns } from './loopTurns.ts';
import type { InProcessPostgres } from './inProcessPostgres.ts';
import { type SeededRandom, seededIds, seededRandom } from './seededRandom.ts';
import { simulatedEngine } from './simulatedEngine.ts';
import { type JobErrors, SIMULATED_JOB_LEASE_MS, simulatedJobWorker } from './simulatedJobWorker.ts';
import { simulatedModel } from './simulatedModel.ts';

const TERMINAL = new Set(['ExecutionCompleted', 'ExecutionFailed']);

export interface ScheduleResult {
  seed: number;
  runs: number;
  faults: number;
  died: boolean;
  modelCalls: number;
  /** Model calls held while their job's worker stalled past its lease and another took the job over. */
  stalls: number;
  /** What the log holds, in order: each event's stream and type (a replay of the seed holds the same). */
  recorded: string[];
  /** Every invariant the schedule broke, in words (empty: it held). */
  violations: string[];
}

const TOOLS = { tools: [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }], toolChoice: 'auto' as const };

/** A flow whose llm block may ask its caller for tools: a step of its own, between passthroughs sometimes. */
function toolSteps(random: SeededRandom, newId: () => string): StoredStep[] {
  const agent: StoredStep = { block: { id: newId(), name: 'agent', processor_type: 'llm', model: 'gpt-4o-mini', prompt: 'run {{message}}: go', processor_config: { tools_enabled: true } } };
  const pass = (name: string): StoredStep => ({ block: { id: newId(), name, processor_type: 'passthrough' } });
  return [...(random.chance(0.5) ? [pass('before')] : []), agent, ...(random.chance(0.5) ? [pass('after')] : [])];
}

/** The resume a paused run's caller sends: the pause's messages and one result per call. */
function resumeOf(request: { executionId: string; flowId: string; steps: StoredStep[]; principal: { kind: 'system'; id: string } }, pause: Extract<ExecutionOutcome, { status: 'paused' }>) {
  const results = pause.toolCalls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: '{"found":true}' }));
  return { executionId: request.executionId, flowId: request.flowId, pausedAtStep: pause.pausedAtStep, toolCallMessages: [...pause.toolCallMessages, ...results], tools: TOOLS, followed: false, principal: request.principal, loadSteps: async () => request.steps };
}

/** A random flow: 1-4 steps of passthrough and llm blocks, sometimes two in parallel. */
function randomSteps(random: SeededRandom, newId: () => string): StoredStep[] {
  const block = (name: string): StoredBlock =>
    random.chance(0.6) ? { id: newId(), name, processor_type: 'llm', model: 'gpt-4o-mini', prompt: 'run {{message}}: {{previous_output}}' } : { id: newId(), name, processor_type: 'passthrough' };
  return Array.from({ length: 1 + random.int(4) }, (_, i) => (random.chance(0.2) ? { parallel: [block(`p${i}a`), block(`p${i}b`)] } : { block: block(`b${i}`) }));
}

/**
 * One schedule of the engine, from its seed alone: a few runs (some pausing for tools, resumed by
 * callers that race themselves) started together on one process whose log fails as the seed draws
 * it (appends before or after commit, reads), whose model answers as the seed draws it, which may
 * die after any number of its appends, and some of whose jobs stall in a model call until another
 * process has taken them over (the stalled worker then wakes and goes on); then that other process
 * takes the jobs over and sweeps the rest; then the invariants: every run that reached the log ended
 * exactly once, nothing follows an end, what callers were told agrees with the log, no run was
 * charged more than the provider billed it (and, in a schedule without faults, exactly that, the
 * stalled workers' calls included), and every hash chain verifies.
 */
export async function simulateSchedule(seed: number, postgres: InProcessPostgres): Promise<ScheduleResult> {
  const random = seededRandom(seed);
  const newId = seededIds(seed);
  let tick = Date.parse('2026-01-01T00:00:00.000Z');
  const now = () => new Date((tick += 1 + random.int(5)));
  await postgres.reset(() => tick, ['seqflow_events', 'seqflow_streams', 'run_data_keys', 'job_leases']);
  // Every lease held now runs out: the clock moves past its length.
  const expireLeases = () => (tick += SIMULATED_JOB_LEASE_MS + 1);
  // The real PostgreSQL adapter on the in-process PostgreSQL: the sound log the takeover and the checks read.
  const log = createPostgresEventStore({ pool: postgres.pool(), listenerRecheckMs: Infinity });
  const rates = random.chance(0.3) ? { appendBeforeCommit: 0, appendAfterCommit: 0, read: 0 } : { appendBeforeCommit: random.next() * 0.1, appendAfterCommit: random.next() * 0.1, read: random.next() * 0.05 };
  // The process dies after this many of its appends commit (or never).
  const dieAfter = random.chance(0.25) ? 1 + random.int(8) : Infinity;
  const process = faultyProcess(postgres, random, rates, dieAfter);
  // Some jobs' first process stalls in a model call until another process has taken the job over.
  const stalled = new Set<string>();
  let takingOver = false;
  let heldCalls = 0;
  let letGo!: () => void;
  const stallEnds = new Promise<void>((resolve) => (letGo = resolve));
  const hold = (run: string) => {
    if (takingOver || !stalled.has(run)) return undefined;
    heldCalls++;
    return stallEnds;
  };
  const model = simulatedModel(random, (prompt) => /^run (\S+):/.exec(prompt)?.[1] ?? 'unknown', { hold });
  // Each run's own version, whose steps a job's worker loads by its id.
  const versions = new Map<string, StoredStep[]>();
  const flows = { versionSteps: async (versionId: string) => versions.get(versionId)! } as unknown as EngineDependencies['flows'];
  const deps = { ...simulatedEngine(process.store, model.fetch, now), flows, retryWaits: loopTurns(random) };
  // The job runners' workers, claiming through the real lease SQL: this process's, and two sound ones that take over.
  const jobErrors: JobErrors = new Map();
  const workerA = simulatedJobWorker(postgres, process.pool, 'worker-a', deps, jobErrors);

  const runCount = 1 + random.int(4);
  const jobs = new Map<string, StoredStep[]>();
  const told = new Map<string, { status: string; code?: string; result?: unknown } | 'error'>();
  // Errors of the code itself that a caller met: each a broken invariant.
  const unexpected: string[] = [];
  const stalledJobs: Promise<void>[] = [];
  await Promise.all(
    Array.from({ length: runCount }, async () => {
      const executionId = newId();
      const withTools = random.chance(0.25);
      const steps = withTools ? toolSteps(random, newId) : randomSteps(random, newId);
      const asJob = !withTools && random.chance(0.4);
      versions.set(`v-${executionId}`, steps);
      const request = { executionId, flowId: 'flow', versionId: `v-${executionId}`, versionNumber: 1, organizationId: 'org', projectId: 'project', steps, message: executionId, parameters: {}, attachments: [], tools: withTools ? TOOLS : undefined, mode: asJob ? ('async' as const) : ('sync' as const), apiKeyId: null, principal: { kind: 'system' as const, id: 'simulation' } };
      if (asJob) {
        // Accepted (202: its caller polls the log's answer), then claimed and run here as the job runner does.
        jobs.set(executionId, steps);
        const claimed = acceptJob(deps, request).then(() => workerA.claim(executionId));
        const run = claimed.then((lease) => lease && workerA.run(lease));
        // Its worker may stall past its lease: the takeover waits for its claim, not for its run.
        if (random.chance(0.3)) {
          stalled.add(executionId);
          stalledJobs.push(run.then(() => undefined, () => undefined));
          await claimed.catch(() => undefined);
          return;
        }
        await run.catch((error: unknown) => {
          if (isCodeError(error)) unexpected.push(`execution-${executionId}: its job got ${(error as Error).name}: ${(error as Error).message}`);
        });
        return;
      }
      try {
        let outcome = await (await prepareExecution(deps, request)).start();
        // A paused run's caller sends its tool results, sometimes several times at once (a retry
        // racing itself): one resume wins each pause, the others are refused having called no model.
        for (let round = 0; outcome?.status === 'paused' && round < 3; round++) {
          const pause = outcome;
          const attempts = await Promise.allSettled(Array.from({ length: 1 + random.int(3) }, async () => (await prepareResume(deps, resumeOf(request, pause))).start()));
          const won = attempts.find((a): a is PromiseFulfilledResult<NonNullable<typeof outcome>> => a.status === 'fulfilled');
          if (!won) break;
          outcome = won.value;
        }
        if (!outcome) throw new Error('the job had ended');
        told.set(executionId, outcome.status === 'failed' ? { status: 'failed', code: outcome.code } : outcome.status === 'completed' ? { status: 'completed', result: outcome.result } : { status: outcome.status });
      } catch (error) {
        // The caller got an error: a fault's, or the service's own refusal. A JavaScript error (a
        // TypeError, a RangeError) is neither: the code broke, whatever the schedule did.
        if (isCodeError(error)) unexpected.push(`execution-${executionId}: its caller got ${(error as Error).name}: ${(error as Error).message}`);
        told.set(executionId, 'error');
      }
    }),
  );

  // Another process (its log sound) takes over: its job runner claims, through the lease SQL, each
  // job whose lease ran out and continues it from its own events; the interrupted-run sweep ends
  // what else was left running.
  const streams = [...new Set((await log.readAll(0, 1_000_000)).map((e) => e.streamId))].filter((s) => s.startsWith('execution-'));
  const violations: string[] = [...unexpected];
  const paused = new Set<string>();
  const takeover: EngineDependencies = { ...deps, eventStore: log, updates: createExecutionUpdates() };
  const workerB = simulatedJobWorker(postgres, postgres.pool(), 'worker-b', takeover, jobErrors);
  const workerC = simulatedJobWorker(postgres, postgres.pool(), 'worker-c', takeover, jobErrors);
  const statusOf = async (executionId: string) => (await loadStream(log, executionStream(executionId), execution)).state.status;
  const whyOf = (executionId: string) => (jobErrors.get(executionId) ?? ['nothing logged']).join('; ');
  takingOver = true;
  expireLeases();
  for (const stream of streams) {
    const executionId = stream.slice('execution-'.length);
    const ended = (await log.readStream(stream)).some((e) => TERMINAL.has(e.type));
    // A run paused for its caller's tools waits for that caller, who gave up: not stuck, not ended.
    if ((await statusOf(executionId)) === 'paused') {
      paused.add(stream);
      continue;
    }
    // A process that lives ends every sync run itself: its end, or RUN_RECORD_FAILED in an append of
    // its own when the end failed. Only both failing (the last two appends it tried) leaves one running.
    // (A job whose worker met a fault keeps its lease, which runs out: another claim takes it over.)
    const tried = process.attempts(stream);
    const lastTwoFailed = tried.length >= 2 && tried.at(-1) === 'fault' && tried.at(-2) === 'fault';
    if (!ended && !jobs.has(executionId) && !process.died() && !lastTwoFailed) violations.push(`${stream}: left running by a process that lived (its appends: ${tried.join(' ')})`);
    if (jobs.has(executionId) && !ended) {
      // Refused only to a worker that ended it meanwhile (a stalled one whose model call came after the takeover began).
      if (!(await workerB.claimAndRun(executionId))) {
        if ((await statusOf(executionId)) === 'running') violations.push(`${stream}: not claimable once its lease ran out, and not ended`);
      }
      // A stalled worker still writing refuses the takeover's claim: the job is claimed again below.
      else if (!stalled.has(executionId) && (await statusOf(executionId)) === 'running') violations.push(`${stream}: the takeover did not end it: ${whyOf(executionId)}`);
      continue;
    }
    if (!ended) {
      await failRun({ eventStore: log, now }, executionId, { code: 'RUN_INTERRUPTED', message: 'swept', principal: { kind: 'system', id: 'sweep' } });
    }
  }

  // The stalled workers wake up, their model calls answered, after another took their jobs over; a
  // job whose takeover met the stalled worker's appends is claimed again once that lease runs out.
  letGo();
  await Promise.all(stalledJobs);
  expireLeases();
  for (const executionId of stalled) {
    if ((await statusOf(executionId)) !== 'running') continue;
    if (!(await workerC.claimAndRun(executionId)) || (await statusOf(executionId)) === 'running') violations.push(`execution-${executionId}: the second takeover did not end it: ${whyOf(executionId)}`);
  }
  // A worker's run that stopped on an error of the code itself (logged, its lease left to run out) broke the code, whatever the schedule did.
  for (const [executionId, logged] of jobErrors) {
    for (const line of logged.filter((l) => CODE_ERRORS.some((name) => l.includes(`[${name}]`)))) violations.push(`execution-${executionId}: a job run stopped on ${line}`);
  }

  for (const stream of streams) {
    const executionId = stream.slice('execution-'.length);
    const events = (await log.readStream(stream)).map((e) => ({ ...e, decoded: decodeRecorded(e) }));
    const ends = events.filter((e) => TERMINAL.has(e.type));
    if (ends.length !== (paused.has(stream) ? 0 : 1)) violations.push(`${stream}: ${ends.length} ends (${ends.map((e) => e.type).join(', ')})`);
    const endAt = events.findIndex((e) => TERMINAL.has(e.type));
    if (endAt !== -1 && endAt < events.length - 1) violations.push(`${stream}: ${events.slice(endAt + 1).map((e) => e.type).join(', ')} after its end`);
    const end = events[endAt];
    const answer = told.get(executionId);
    if (answer && answer !== 'error' && end) {
      if (answer.status === 'completed' && end.type !== 'ExecutionCompleted') violations.push(`${stream}: its caller was told completed, the log says ${end.type}`);
      if (answer.status === 'failed' && (end.type !== 'ExecutionFailed' || (end.data as { code: string }).code !== answer.code)) violations.push(`${stream}: its caller was told failed ${answer.code}, the log says ${end.type} ${(end.data as { code?: string }).code ?? ''}`);
    }
    // Each claim of a job is a claim of its lease: recorded in the order the leases counted them, none twice.
    const claims = events.filter((e) => e.type === 'JobClaimed').map((e) => (e.data as { claim: number }).claim);
    if (claims.some((claim, i) => i > 0 && claim <= claims[i - 1]!)) violations.push(`${stream}: claims recorded ${claims.join(', ')}`);
    // Each pause is resumed at most once: a racing resume's append is refused.
    let open = 0;
    for (const event of events) {
      if (event.type === 'ExecutionPausedForToolCalls') open++;
      if (event.type === 'ExecutionResumed' && --open < 0) violations.push(`${stream}: a pause resumed twice`);
    }
    // What the run's workers charged: with the run, and the calls a stalled worker made after the run moved on.
    const charges = [...events, ...(await log.readStream(runLateChargesStream(executionId)))].filter((e) => e.type === 'CreditsConsumed');
    const charged = charges.reduce((sum, e) => sum + (e.data as { tokens: number }).tokens, 0);
    const billed = model.billed.get(executionId) ?? 0;
    if (charged > billed) violations.push(`${stream}: charged ${charged} tokens, the provider billed ${billed}`);
    if (!process.died() && process.faults() === 0 && charged !== billed) violations.push(`${stream}: charged ${charged} tokens, the provider billed ${billed}, in a schedule without faults`);
  }
  for (const [executionId, answer] of told) {
    if (answer !== 'error' && (answer.status === 'completed' || answer.status === 'failed') && !streams.includes(`execution-${executionId}`)) violations.push(`execution-${executionId}: its caller was told ${answer.status}, the log has no such run`);
  }
  const verified = await verifyLog(log);
  if (verified.problem) violations.push(`the log does not verify: ${verified.problem.detail}`);
  const recorded = (await log.readAll(0, 1_000_000)).map((e) => `${e.streamId} ${e.type}`);
  return { seed, runs: runCount, faults: process.faults(), died: process.died(), modelCalls: model.calls(), stalls: heldCalls, recorded, violations };
}

/**
 * The engine's process: the real PostgreSQL adapter over its faulty connection (faultyConnection.ts),
 * and, per stream, how each append it tried went as its caller saw it (a fault, or a death, is
 * 'fault'; a concurrent writer's refusal is not a fault).
 */
function faultyProcess(postgres: InProcessPostgres, random: SeededRandom, rates: Parameters<typeof faultyConnection>[2], dieAfter: number) {
  const connection = faultyConnection(postgres, random, rates, dieAfter);
  const adapter = createPostgresEventStore({ pool: connection.pool, readRetries: loopTurns(random), listenerRecheckMs: Infinity });
  const attempts = new Map<string, ('ok' | 'fault')[]>();
  const tried = (streamId: string, how: 'ok' | 'fault') => attempts.set(streamId, [...(attempts.get(streamId) ?? []), how]);
  const store: EventStore = {
    ...adapter,
    async append(streamId, events, expected, options) {
      try {
        const result = await adapter.append(streamId, events, expected, options);
        tried(streamId, 'ok');
        return result;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision)) tried(streamId, 'fault');
        throw error;
      }
    },
  };
  return { store, pool: connection.pool, faults: connection.faults, died: connection.dead, attempts: (streamId: string) => attempts.get(streamId) ?? [] };
}


/** Errors the code made rather than met: no fault, refusal or lost connection throws one of these. */
const CODE_ERRORS = ['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError'];

function isCodeError(error: unknown): boolean {
  return error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError;
}
