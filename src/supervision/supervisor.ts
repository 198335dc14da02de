import { RETRY_POLICIES, type RetryPolicy, assertRetryPolicies, retryDelayMs } from '../domain/retry/retryPolicy.ts';
import type { Logger } from 'pino';
import { type WakeableSleep, createWakeableSleep } from './wakeableSleep.ts';

/**
 * Runs the process's long-lived tasks (projections, the delivery creator, the job runner, the
 * dispatcher, anything later) and restarts any that fails or ends on its own, after an exponential
 * backoff with jitter, so no reactor stops for good on one bad moment. Each task's state is
 * reported in /health.
 */
export interface SupervisedTask {
  /** Settles when the task ends: rejects with why it failed; resolving before `stop` counts as a failure too. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export interface TaskStatus {
  name: string;
  state: 'starting' | 'running' | 'restarting' | 'stopped';
  restarts: number;
  lastError: string | null;
  lastErrorAt: string | null;
  /** When the current restart is due (state `restarting`). */
  restartAt: string | null;
}

export interface SupervisorOptions {
  logger: Logger;
  now?: () => Date;
  /** First restart delay; it doubles per consecutive failure up to `maxDelayMs`, and each delay is jittered to 50-100 %. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A task that ran this long before failing starts its backoff over. */
  healthyAfterMs?: number;
  random?: () => number;
}

interface Unit {
  status: TaskStatus;
  stopping: boolean;
  task: SupervisedTask | undefined;
  loop: Promise<void> | undefined;
  /** The wait before a restart, which a stop ends at once. */
  pause: WakeableSleep;
}

export function createSupervisor(options: SupervisorOptions) {
  const now = options.now ?? (() => new Date());
  // The one retry policy, with this supervisor's delays: restarts go on while the process lives.
  const defaults = RETRY_POLICIES.supervisedTask;
  const initialDelayMs = options.initialDelayMs ?? defaults.initialDelayMs;
  // A first delay configured past the default cap raises the cap with it: the delay never shrinks.
  const policy: RetryPolicy = { ...defaults, initialDelayMs, maxDelayMs: options.maxDelayMs ?? Math.max(defaults.maxDelayMs, initialDelayMs) };
  // Settings that come from the configuration (SEQFLOW_RESTART_DELAY_MS) are checked before any task runs.
  assertRetryPolicies({ supervisedTask: policy });
  const healthyAfterMs = options.healthyAfterMs ?? 60_000;
  const random = options.random ?? Math.random;
  const units = new Map<string, Unit>();

  async function keep(unit: Unit, start: () => SupervisedTask | Promise<SupervisedTask>) {
    let failures = 0;
    while (!unit.stopping) {
      const began = now().getTime();
      try {
        unit.status.state = 'starting';
        unit.task = await start();
        if (unit.stopping) {
          await unit.task.stop();
          break;
        }
        unit.status.state = 'running';
        await unit.task.done;
        if (unit.stopping) break;
        throw new Error('ended on its own');
      } catch (error) {
        if (unit.stopping) break;
        if (now().getTime() - began >= healthyAfterMs) failures = 0;
        failures++;
        const delay = retryDelayMs(policy, failures, random());
        unit.status = {
          ...unit.status,
          state: 'restarting',
          restarts: unit.status.restarts + 1,
          lastError: (error as Error).message ?? String(error),
          lastErrorAt: now().toISOString(),
          restartAt: new Date(now().getTime() + delay).toISOString(),
        };
        options.logger.error({ err: error, task: unit.status.name, restartInMs: delay }, 'supervised task failed; restarting');
        await unit.pause.sleep(delay);
        unit.status.restartAt = null;
      }
    }
    unit.status.state = 'stopped';
  }

  async function stopUnit(unit: Unit) {
    unit.stopping = true;
    unit.pause.wake();
    await unit.task?.stop().catch((error: unknown) => options.logger.warn({ err: error, task: unit.status.name }, 'task failed to stop cleanly'));
    await unit.loop;
    units.delete(unit.status.name);
  }

  return {
    /** Starts `start()` now and keeps it running until stopped. Names are unique per process. */
    supervise(name: string, start: () => SupervisedTask | Promise<SupervisedTask>): { stop(): Promise<void> } {
      if (units.has(name)) throw new Error(`a task named ${name} is already supervised`);
      const unit: Unit = { status: { name, state: 'starting', restarts: 0, lastError: null, lastErrorAt: null, restartAt: null }, stopping: false, task: undefined, loop: undefined, pause: createWakeableSleep() };
      units.set(name, unit);
      unit.loop = keep(unit, start);
      return { stop: () => stopUnit(unit) };
    },

    status: (): TaskStatus[] => [...units.values()].map((u) => ({ ...u.status })),

    /** Stops every task (in the reverse order of starting) and waits for them. */
    async stop() {
      for (const unit of [...units.values()].reverse()) await stopUnit(unit);
    },
  };
}

export type Supervisor = ReturnType<typeof createSupervisor>;
