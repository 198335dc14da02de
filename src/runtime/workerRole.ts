import { createInterruptedBacktestSweep } from '../backtests/interruptedBacktests.ts';
import type { Runtime } from './runtime.ts';
import { createDeliveryCreator } from '../workers/deliveryCreator.ts';
import { createJobRunner } from '../workers/jobRunner.ts';
import { createWebhookDispatcher } from '../workers/webhookDispatcher.ts';
import { createInterruptedRunSweep } from '../runs/interruptedRuns.ts';
import { createApprovalTimeoutSweep } from '../approvals/approvalTimeoutSweep.ts';
import { createRetentionSweep } from '../retention/retentionSweep.ts';
import { createScheduleSweep } from '../schedules/scheduleSweep.ts';

/**
 * What the `worker` role runs: the projections, the job runner, the webhook reactors (the delivery
 * creator and the dispatcher), the sweep that ends runs whose process died, the retention sweep, the schedule sweep and the approval timeout sweep. Any number of worker processes may run against one database.
 */
export async function startWorkers(runtime: Runtime): Promise<{ stop(): Promise<void> }> {
  await runtime.projections.start();
  // The dispatcher's signing secrets and the runs' provider keys come from memory while it runs.
  runtime.logWatch.start();
  const { supervisor } = runtime;
  const jobs = createJobRunner({
    db: runtime.db,
    engine: runtime.execution,
    logger: runtime.logger,
    leaseMs: runtime.config.jobs.leaseMs,
    concurrency: runtime.config.jobs.concurrency,
    workerId: runtime.config.jobs.workerId,
    maxClaims: runtime.config.jobs.maxClaims,
    graceMs: runtime.config.shutdownGraceMs,
    accepted: runtime.execution.updates.onJobAccepted,
  });
  const dispatcher = createWebhookDispatcher({
    db: runtime.db,
    commands: runtime.commands,
    guard: runtime.execution.guard,
    masterKey: runtime.masterKey,
    organizations: runtime.organizations,
    logger: runtime.logger,
    retryDelaysMs: runtime.config.webhooks.retryDelaysMs,
    timeoutMs: runtime.config.webhooks.timeoutMs,
    leaseMs: runtime.config.webhooks.leaseMs,
    concurrency: runtime.config.webhooks.concurrency,
    hostConcurrency: runtime.config.webhooks.hostConcurrency,
    worker: runtime.config.jobs.workerId,
    graceMs: runtime.config.shutdownGraceMs,
    observeAttempt: runtime.metrics.attemptFinished,
    tracer: runtime.tracing.tracer,
    healthNotes: runtime.healthNotes,
  });
  // A new delivery is attempted at once, without waiting for its read-model row or the next sweep.
  const creator = createDeliveryCreator({
    db: runtime.db,
    eventStore: runtime.eventStore,
    commands: runtime.commands,
    onCreated: (deliveryId) => void dispatcher.offer(deliveryId),
  });
  // A third of the lease: what a dead process ran ends between one and one and a third leases after it died.
  const sweeps = { db: runtime.db, logger: runtime.logger, sweeper: runtime.execution.runner ?? 'worker', intervalMs: Math.floor(runtime.config.jobs.runnerLeaseMs / 3) };
  const interrupted = createInterruptedRunSweep({ ...sweeps, engine: runtime.execution });
  const interruptedBacktests = createInterruptedBacktestSweep({ ...sweeps, commands: runtime.commands });
  const approvalTimeouts = createApprovalTimeoutSweep({ ...sweeps, commands: runtime.commands });
  const retention = createRetentionSweep({ db: runtime.db, commands: runtime.commands, runDataKeys: runtime.runDataKeys, readModelsCurrent: runtime.readModelsCurrent, logger: runtime.logger, intervalMs: runtime.config.retentionSweepMs });
  const { schedules } = runtime.config;
  const scheduleSweep = createScheduleSweep({ db: runtime.db, commands: runtime.commands, runs: runtime.runs, logger: runtime.logger, intervalMs: schedules.sweepMs, rules: schedules });
  // Each runs under the supervisor: restarted with backoff when it fails, its state in /health.
  const tasks = [
    supervisor.supervise('interrupted-run-sweep', () => interrupted.start()),
    supervisor.supervise('interrupted-backtest-sweep', () => interruptedBacktests.start()),
    supervisor.supervise('job-runner', () => jobs.start()),
    supervisor.supervise('approval-timeout-sweep', () => approvalTimeouts.start()),
    supervisor.supervise('webhook-dispatcher', () => dispatcher.start()),
    supervisor.supervise('delivery-creator', () => creator.start()),
    supervisor.supervise('retention-sweep', () => retention.start()),
    supervisor.supervise('schedule-sweep', () => scheduleSweep.start()),
    supervisor.supervise('watchdog', () => runtime.watchdog.start(runtime.config.watchdog.intervalMs)),
  ];
  return {
    async stop() {
      for (const task of tasks.reverse()) await task.stop();
      await runtime.projections.stop();
    },
  };
}
