/**
 * Every wait in the bench ends: by its answer, or after its deadline with an error naming what it
 * waited for (a stalled projection or a peer that hangs must fail the figure, not hang `npm run bench`).
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`no answer after ${ms / 1000} s from ${what}`)), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `done` every `everyMs` until it holds; after `ms`, fails naming what it waited for and what `done` last saw. */
export async function pollUntil(done: () => Promise<boolean | { ok: boolean; seen: string }>, ms: number, what: string, everyMs = 10): Promise<void> {
  const deadline = performance.now() + ms;
  for (;;) {
    const answer = await done();
    const ok = typeof answer === 'boolean' ? answer : answer.ok;
    if (ok) return;
    if (performance.now() > deadline) throw new Error(`waited ${ms / 1000} s for ${what}${typeof answer === 'boolean' ? '' : `; last seen: ${answer.seen}`}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
