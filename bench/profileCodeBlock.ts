/**
 * `npm run bench:profile-code`: what one code block costs in the sandbox pool when it is warm (the
 * three-block flow's code, QuickJS in worker threads). Calls made one at a time, then as many at once
 * as the pool has workers. Prints JSON: per call, the wall time (p50, p99), the CPU of the whole
 * process (the worker threads included), and the time the main thread's event loop was busy with it
 * (its event-loop utilization): the share of the service's own thread that requests compete for.
 */
import { performance } from 'node:perf_hooks';
import { createCodeSandbox } from '../src/execution/processors/codeSandboxPool.ts';
import { percentile } from './percentile.ts';

const CALLS = Number(process.env.PROFILE_CALLS ?? 3000);
const POOL = 2; // the service's default pool size
const code = 'return { text: input.message.trim(), words: input.message.split(" ").length };';
const input = { message: '  summarise the quarterly report in one line please  ' };

const sandbox = createCodeSandbox({ timeoutMs: 1000, memoryMb: 32 }, { size: POOL });

async function measure(concurrency: number) {
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < CALLS) {
        const t0 = performance.now();
        await sandbox.run(code, input, 'bench');
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const busy = performance.eventLoopUtilization(loop);
  const sorted = latencies.sort((a, b) => a - b);
  const us = (n: number) => Math.round(n);
  return {
    concurrency,
    calls: CALLS,
    perSecond: Math.round((CALLS / wallMs) * 1000),
    p50Us: us(percentile(sorted, 50) * 1000),
    p99Us: us(percentile(sorted, 99) * 1000),
    processCpuUsPerCall: us((used.user + used.system) / CALLS),
    mainThreadBusyUsPerCall: us((busy.active * 1000) / CALLS),
  };
}

try {
  await measure(POOL); // warm: the workers, QuickJS's module, the JIT
  const oneAtATime = await measure(1);
  const poolWide = await measure(POOL);
  process.stdout.write(`${JSON.stringify({ code, oneAtATime, poolWide }, null, 2)}\n`);
} finally {
  await sandbox.close();
}
