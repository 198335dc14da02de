import { trace } from '@opentelemetry/api';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RETRY_POLICIES } from '../../src/domain/retry/retryPolicy.ts';
import type { EngineDependencies } from '../../src/execution/engineDependencies.ts';
import type { AddressGuard } from '../../src/outbound/addressGuard.ts';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';
import { createJobRunner } from '../../src/workers/jobRunner.ts';
import { createWebhookDispatcher } from '../../src/workers/webhookDispatcher.ts';
import type { CommandDependencies } from '../../src/commands/commandHandler.ts';
import { freePort } from '../support/freePort.ts';

interface Warning {
  msg: string;
  time: number;
  failures?: number;
  retryInMs?: number;
}

/** No claim was tried again before the wait the one before it named (a later one is fine: the machine may be loaded). */
function expectWaitsKept(warnings: Warning[]) {
  for (let i = 1; i < warnings.length; i++) expect(warnings[i]!.time - warnings[i - 1]!.time).toBeGreaterThanOrEqual(warnings[i - 1]!.retryInMs! - 5);
}

/**
 * The claim loops of jobs and deliveries when their database is away: every claim fails, and each
 * next claim waits by the one retry policy (250 ms, 500, 1,000… up to its cap), not a poll at a
 * time for as long as the outage lasts. The jitter is fixed so the waits are the policy's own.
 */
describe('claim loops whose database refuses connections', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  async function unreachableDatabase() {
    const pool = new pg.Pool({ host: '127.0.0.1', port: await freePort(), user: 'postgres', connectionTimeoutMillis: 2_000 });
    pool.on('error', () => undefined);
    const db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
    closers.push(() => db.destroy());
    return db;
  }

  function recordingLogger() {
    const lines: Warning[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    return { logger, lines };
  }

  async function warningsOf(lines: Warning[], msg: string, count: number) {
    await expect.poll(() => lines.filter((line) => line.msg === msg).length, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(count);
    return lines.filter((line) => line.msg === msg);
  }

  const nominal = (failures: number) => Math.min(RETRY_POLICIES.claimLoop.maxDelayMs, RETRY_POLICIES.claimLoop.initialDelayMs * 2 ** (failures - 1));

  it('the job runner waits longer after each failed claim, by the retry policy', async () => {
    const { logger, lines } = recordingLogger();
    const runner = createJobRunner({
      db: await unreachableDatabase(),
      engine: {} as EngineDependencies,
      logger,
      leaseMs: 2_000,
      concurrency: 2,
      workerId: 'backoff-test',
      pollMs: 10,
      random: () => 1,
    });
    const task = runner.start();
    closers.push(() => task.stop());
    const warnings = await warningsOf(lines, 'job claim failed', 4);
    expect(warnings.slice(0, 4).map((line) => [line.failures, line.retryInMs])).toEqual([1, 2, 3, 4].map((n) => [n, nominal(n)]));
    expectWaitsKept(warnings.slice(0, 4));
  });

  it('the webhook dispatcher skips its sweeps until the wait after a failed one is over', async () => {
    const { logger, lines } = recordingLogger();
    const dispatcher = createWebhookDispatcher({
      db: await unreachableDatabase(),
      logger,
      worker: 'backoff-test',
      commands: {} as CommandDependencies,
      guard: {} as AddressGuard,
      masterKey: Buffer.alloc(32),
      tracer: trace.getTracer('backoff-test'),
      random: () => 1,
    });
    const task = dispatcher.start();
    closers.push(() => task.stop());
    // Sweeps are asked for every second; with waits of 0.25, 0.5, 1 and 2 s, the failures still count up one by one.
    const warnings = await warningsOf(lines, 'delivery sweep failed', 4);
    expect(warnings.slice(0, 4).map((line) => [line.failures, line.retryInMs])).toEqual([1, 2, 3, 4].map((n) => [n, nominal(n)]));
    expectWaitsKept(warnings.slice(0, 4));
  });
});
