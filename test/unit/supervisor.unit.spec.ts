import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type SupervisedTask, createSupervisor } from '../../src/supervision/supervisor.ts';

const logger = pino({ level: 'silent' });

/** A task whose `done` the test settles: fail(), or end() on its own. */
function controllableTask() {
  let fail!: (error: Error) => void;
  let end!: () => void;
  const done = new Promise<void>((resolve, reject) => ((end = resolve), (fail = reject)));
  done.catch(() => undefined);
  let stopped = false;
  const task: SupervisedTask = { done, stop: async () => void ((stopped = true), end()) };
  return { task, fail, end, stopped: () => stopped };
}

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('supervisor', () => {
  it('restarts a task that fails, and one that ends on its own, with growing jittered delays, reporting each in its status', async () => {
    const supervisor = createSupervisor({ logger, initialDelayMs: 10, maxDelayMs: 40, random: () => 1 });
    const started: ReturnType<typeof controllableTask>[] = [];
    supervisor.supervise('reactor', () => {
      const next = controllableTask();
      started.push(next);
      return next.task;
    });
    await waitFor(() => started.length === 1 && supervisor.status()[0]!.state === 'running');
    started[0]!.fail(new Error('store unreachable'));
    await waitFor(() => started.length === 2);
    expect(supervisor.status()[0]).toMatchObject({ name: 'reactor', restarts: 1, lastError: 'store unreachable', lastErrorAt: expect.any(String) });
    started[1]!.end();
    await waitFor(() => started.length === 3);
    expect(supervisor.status()[0]).toMatchObject({ restarts: 2, lastError: 'ended on its own' });
    await supervisor.stop();
    expect(started[2]!.stopped()).toBe(true);
    expect(supervisor.status()).toEqual([]);
  });

  it('doubles the delay per consecutive failure up to the maximum, jittered to 50-100 %', async () => {
    const states: (string | null)[] = [];
    const now = 0;
    const supervisor = createSupervisor({ logger, now: () => new Date(now), initialDelayMs: 10, maxDelayMs: 40, random: () => 0 });
    let runs = 0;
    supervisor.supervise('flaky', () => {
      runs++;
      const { task, fail } = controllableTask();
      queueMicrotask(() => fail(new Error(`failure ${runs}`)));
      return task;
    });
    for (let i = 1; i <= 4; i++) {
      await waitFor(() => supervisor.status()[0]!.restarts === i);
      const status = supervisor.status()[0]!;
      states.push(status.restartAt);
    }
    await supervisor.stop();
    // random() = 0: half of 10, 20, 40, 40 ms after the (frozen) clock.
    expect(states).toEqual([5, 10, 20, 20].map((ms) => new Date(now + ms).toISOString()));
  });

  it('stops a task that is waiting to be restarted at once', async () => {
    const supervisor = createSupervisor({ logger, initialDelayMs: 60_000 });
    supervisor.supervise('dead', () => {
      const { task, fail } = controllableTask();
      queueMicrotask(() => fail(new Error('down')));
      return task;
    });
    await waitFor(() => supervisor.status()[0]?.state === 'restarting');
    await supervisor.stop(); // would hang for a minute if the restart delay were not cut short
    expect(supervisor.status()).toEqual([]);
  });
});
