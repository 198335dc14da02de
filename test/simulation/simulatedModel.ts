import type { SeededRandom } from './seededRandom.ts';

/**
 * The model provider's side of the simulation, behind the real llm processor: a fetch that answers
 * chat completions as the seed draws them (a reply, a reply the log cannot store, a 500, an
 * impossible token count) and keeps, per run, the tokens the provider billed for the replies it gave.
 * `hold` may keep a call waiting (the process that made it stalls) before it is answered.
 */
export function simulatedModel(random: SeededRandom, runOf: (prompt: string) => string, options: { hold?: (run: string) => Promise<void> | undefined } = {}) {
  const billed = new Map<string, number>();
  let calls = 0;
  const fetch = async (_input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    await Promise.resolve();
    calls++;
    const body = JSON.parse(String(init?.body)) as { model: string; messages: { role: string; content: unknown }[]; tools?: unknown[] };
    const prompt = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
    const run = runOf(prompt);
    // A call held here (its process stalled on the way) is answered, and billed, only when let go.
    await options.hold?.(run);
    const roll = random.next();
    if (roll < 0.1) return new Response(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }), { status: 500, headers: { 'content-type': 'application/json' } });
    const usage = roll < 0.15 ? { prompt_tokens: -3, completion_tokens: 2, total_tokens: -1 } : { prompt_tokens: 1 + random.int(20), completion_tokens: 1 + random.int(20) };
    const content = roll < 0.25 ? `half an emoji \ud83d and a NUL \u0000` : `answer ${random.int(1000)}`;
    if (usage.prompt_tokens > 0) billed.set(run, (billed.get(run) ?? 0) + usage.prompt_tokens + usage.completion_tokens);
    // Offered tools, it asks for one about half the time (the run pauses for its caller).
    const asks = body.tools !== undefined && roll >= 0.25 && random.chance(0.5);
    const message = asks ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${calls}`, type: 'function', function: { name: 'lookup', arguments: '{}' } }] } : { role: 'assistant', content };
    const completion = { id: `sim-${calls}`, object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, finish_reason: asks ? 'tool_calls' : 'stop', message }], usage: { total_tokens: usage.prompt_tokens + usage.completion_tokens, ...usage } };
    return new Response(JSON.stringify(completion), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, billed, calls: () => calls };
}
