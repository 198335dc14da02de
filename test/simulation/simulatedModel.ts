import type { SeededRandom } from './seededRandom.ts';

/**
 * The model provider's side of the simulation, behind the real llm processor: a fetch that answers
 * chat completions as the seed draws them (a reply, a reply the log cannot store, a 500, an
 * impossible token count) and keeps, per run, the tokens the provider billed for the replies it gave.
 */
export function simulatedModel(random: SeededRandom, runOf: (prompt: string) => string) {
  const billed = new Map<string, number>();
  let calls = 0;
  const fetch = async (_input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    await Promise.resolve();
    calls++;
    const body = JSON.parse(String(init?.body)) as { model: string; messages: { role: string; content: unknown }[] };
    const prompt = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
    const run = runOf(prompt);
    const roll = random.next();
    if (roll < 0.1) return new Response(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }), { status: 500, headers: { 'content-type': 'application/json' } });
    const usage = roll < 0.15 ? { prompt_tokens: -3, completion_tokens: 2, total_tokens: -1 } : { prompt_tokens: 1 + random.int(20), completion_tokens: 1 + random.int(20) };
    const content = roll < 0.25 ? `half an emoji \ud83d and a NUL \u0000` : `answer ${random.int(1000)}`;
    if (usage.prompt_tokens > 0) billed.set(run, (billed.get(run) ?? 0) + usage.prompt_tokens + usage.completion_tokens);
    const completion = { id: `sim-${calls}`, object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }], usage: { total_tokens: usage.prompt_tokens + usage.completion_tokens, ...usage } };
    return new Response(JSON.stringify(completion), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, billed, calls: () => calls };
}
