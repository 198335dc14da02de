/**
 * The other side of the execute bench, in a process of its own so that it does not share the
 * service's event loop: the scripted model server (answering at once) and the HTTP load generator.
 * Driven over IPC by executeBench.ts.
 */
import { startScriptedModelServer } from '../test/support/scriptedModelServer.ts';

const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const model = await startScriptedModelServer();
model.respond = () => ({ content: { summary: 'ok' }, usage: { prompt_tokens: 20, completion_tokens: 5 } });

async function load(url: string, key: string, concurrency: number, total: number, blocks: number) {
  const call = async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'The quick brown fox jumps over the lazy dog' }),
    });
    if (response.status !== 200) throw new Error(`execute answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  for (let i = 0; i < Math.min(20, total); i++) await call(); // warm-up
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) {
        const t0 = performance.now();
        await call();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  return {
    concurrency,
    executions: total,
    executionsPerSecond: round(total / seconds),
    p50Ms: round(p50),
    p99Ms: round(percentile(latencies, 99)),
    // The model answers at once, so the latency is the service's own work; per block:
    overheadPerBlockP50Ms: round(p50 / blocks, 2),
  };
}

process.on('message', (message: { type: 'load'; url: string; key: string; concurrency: number; total: number; blocks: number } | { type: 'stop' }) => {
  if (message.type === 'stop') {
    void model.close().then(() => process.exit(0));
    return;
  }
  load(message.url, message.key, message.concurrency, message.total, message.blocks).then(
    (result) => process.send!({ type: 'result', result }),
    (error: Error) => process.send!({ type: 'error', message: error.message }),
  );
});
process.send!({ type: 'ready', baseUrl: model.baseUrl });
