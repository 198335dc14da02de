/**
 * The other side of the execute bench, in a process of its own so that it does not share the
 * service's event loop: the scripted model server (answering at once) and the HTTP load generator.
 * Driven over IPC by executeBench.ts.
 */
import { Agent, fetch, setGlobalDispatcher } from 'undici';
import { startScriptedModelServer } from '../test/support/scriptedModelServer.ts';
import { SLOW_MODEL, SLOW_MODEL_DELAY_MS } from './benchModel.ts';
import { percentile } from './percentile.ts';

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

const model = await startScriptedModelServer();
// With tools, the model always asks for one more call; without, it answers at once (or after a
// second on the slow model). Requests are not kept: the memory bench makes 100k of them.
model.respond = (request) => {
  model.requests.length = 0;
  if (request.body.tools) return { toolCalls: [{ id: `call_${request.body.messages.filter((m) => m.role === 'tool').length + 1}`, name: 'lookup', arguments: '{}' }], usage: { prompt_tokens: 20, completion_tokens: 5 } };
  return { content: { summary: 'ok' }, usage: { prompt_tokens: 20, completion_tokens: 5 }, delayMs: request.body.model === SLOW_MODEL ? SLOW_MODEL_DELAY_MS : undefined };
};

const tools = [{ type: 'function', function: { name: 'lookup', description: 'Look something up', parameters: { type: 'object', properties: {} } } }];

interface Pause {
  executionId: string;
  pausedAtStep: string;
  iterationsUsed: number;
  toolCallMessages: unknown[];
  toolCalls: { id: string }[];
}

/**
 * `runs` fresh calls that each pause, each resumed `rounds` times (every resume ends in the next
 * pause): the service's time per resume round trip, one call at a time.
 */
async function toolLoop(url: string, key: string, runs: number, rounds: number) {
  const post = async (body: unknown) => {
    const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status !== 200) throw new Error(`execute answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as Pause;
  };
  const latencies: number[] = [];
  let lastIterationsUsed = 0;
  for (let run = 0; run < runs; run++) {
    let pause = await post({ message: 'go', tools });
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      pause = await post({
        executionId: pause.executionId,
        pausedAtStep: pause.pausedAtStep,
        iterationsUsed: pause.iterationsUsed,
        toolCallMessages: [...pause.toolCallMessages, { role: 'tool', tool_call_id: pause.toolCalls[0]!.id, content: 'result' }],
        tools,
      });
      if (run > 0) latencies.push(performance.now() - t0); // the first run warms up
    }
    lastIterationsUsed = pause.iterationsUsed;
  }
  const sorted = latencies.sort((a, b) => a - b);
  return { runs, roundsPerRun: rounds, roundTrips: sorted.length, p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)), lastIterationsUsed };
}

// Up to 500 calls at once from this process, each on a connection of its own.
setGlobalDispatcher(new Agent({ connections: 1024, pipelining: 1 }));

export interface LoadRequest {
  /** Several URLs are called in turn (one service behind several processes). */
  url: string | string[];
  key: string;
  concurrency: number;
  total: number;
  /** The status every answer must have: 200 for /execute, 202 for /jobs. */
  status: number;
  warmUp?: number;
}

/** `total` POSTs, `concurrency` at a time: throughput and latency as the caller sees them. */
async function load({ url, key, concurrency, total, status, warmUp = 20 }: LoadRequest) {
  const urls = [url].flat();
  let turn = 0;
  const call = async () => {
    const target = urls[turn++ % urls.length]!;
    const response = await fetch(target, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'The quick brown fox jumps over the lazy dog' }),
    });
    if (response.status !== status) throw new Error(`${target} answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  for (let i = 0; i < Math.min(warmUp, total); i++) await call();
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
  return { concurrency, requests: total, perSecond: round(total / seconds), p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)) };
}

type Message =
  | ({ type: 'load' } & LoadRequest)
  | { type: 'toolLoop'; url: string; key: string; runs: number; rounds: number }
  | { type: 'stop' };

process.on('message', (message: Message) => {
  if (message.type === 'stop') {
    void model.close().then(() => process.exit(0));
    return;
  }
  const work = message.type === 'toolLoop' ? toolLoop(message.url, message.key, message.runs, message.rounds) : load(message);
  work.then(
    (result) => process.send!({ type: 'result', result }),
    (error: Error) => process.send!({ type: 'error', message: error.message }),
  );
});
process.send!({ type: 'ready', baseUrl: model.baseUrl });
