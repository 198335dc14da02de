import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { BlockFailure } from '../../src/execution/processors/blockFailure.ts';
import { createCodeSandbox } from '../../src/execution/processors/codeSandboxPool.ts';
import { failureText } from '../../src/domain/execution/failureMessage.ts';

const limits = { timeoutMs: 1000, memoryMb: 64 };
const sandbox = createCodeSandbox(limits);
afterAll(() => sandbox.close());
const runCode = (code: string, input: unknown, l = limits, owner = 'org-a') => sandbox.run(code, input, owner, l);
/** A block's failure as people read it: the service's words, then what came from the code. */
const failure = (code: string, input: unknown = {}, l = limits) => runCode(code, input, l).then(() => 'no failure', (error: BlockFailure) => failureText(error));

describe('a sandbox worker that starts', () => {
  it('is given blocks once it is ready: a slow start does not count against a block\'s time limit', async () => {
    const slow = createCodeSandbox(limits, { graceMs: 500, workerFile: new URL('../support/slowSandboxWorker.mjs', import.meta.url) });
    try {
      await expect(slow.run('return input.n + 1;', { n: 1 }, 'org-a')).resolves.toBe(2);
    } finally {
      await slow.close();
    }
  });

  it('loads a fresh QuickJS after a failed run before it takes another block, so the next block\'s time limit does not pay for it', async () => {
    const worker = new Worker(new URL('../../src/execution/processors/codeSandboxWorkerEntry.mjs', import.meta.url));
    const messages: unknown[] = [];
    worker.on('message', (message) => messages.push(message));
    const nth = async (n: number) => {
      for (let i = 0; i < 600 && messages.length < n; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      return messages[n - 1];
    };
    try {
      expect(await nth(1)).toEqual({ ready: true });
      worker.postMessage({ id: 1, code: 'throw new Error("nope");', input: {}, limits });
      expect(await nth(2)).toEqual({ id: 1, ok: false, message: 'code block threw', detail: 'Error: nope', reloading: true });
      expect(await nth(3)).toEqual({ ready: true });
      worker.postMessage({ id: 2, code: 'return 7;', input: {}, limits });
      expect(await nth(4)).toEqual({ id: 2, ok: true, value: '7' });
    } finally {
      await worker.terminate();
    }
  });

  it('fails blocks one by one, saying so, when it cannot start at all', async () => {
    const broken = createCodeSandbox({ timeoutMs: 200, memoryMb: 64 }, { size: 1, workerFile: new URL('../support/brokenSandboxWorker.mjs', import.meta.url) });
    try {
      const runs = await Promise.allSettled([broken.run('return 1;', {}, 'org-a'), broken.run('return 2;', {}, 'org-b')]);
      expect(runs.map((r) => r.status === 'rejected' && failureText(r.reason as BlockFailure))).toEqual([expect.stringMatching(/^the code sandbox could not start: .*no sandbox here/), expect.stringMatching(/^the code sandbox could not start/)]);
      expect(broken.queued()).toBe(0);
    } finally {
      await broken.close();
    }
  });
});

describe('code sandbox', () => {
  it('runs the body as a function of input and returns its JSON value', async () => {
    const input = { message: 'héllo', previous_output: { n: 2 }, parameters: { x: [1, 2] } };
    await expect(runCode('return { len: input.message.length, twice: input.previous_output.n * 2, first: input.parameters.x[0] };', input, limits)).resolves.toEqual({
      len: 5,
      twice: 4,
      first: 1,
    });
    await expect(runCode('return "text";', {}, limits)).resolves.toBe('text');
    await expect(runCode('const x = 1;', {}, limits)).resolves.toBeNull();
  });

  it('fails a thrown error with its message', async () => {
    expect(await failure('throw new TypeError("bad input");')).toBe('code block threw: TypeError: bad input');
    expect(await failure('return input.a.b.c;')).toMatch(/^code block threw: TypeError: /);
    expect(await failure('this is not javascript')).toMatch(/^code block threw: SyntaxError: /);
  });

  it("keeps what the code threw out of the service's words: the message is the same for every throw, the thrown text is the detail", async () => {
    const thrown = await runCode('throw new Error("invalid customer " + input.email);', { email: 'carol@example.com' }).then(() => undefined, (e: unknown) => e);
    expect(thrown).toMatchObject({ code: 'CODE_BLOCK_FAILED', message: 'code block threw', detail: 'Error: invalid customer carol@example.com' });
    const thrownString = await runCode('throw input.email;', { email: 'carol@example.com' }).then(() => undefined, (e: unknown) => e);
    expect(thrownString).toMatchObject({ message: 'code block threw', detail: 'carol@example.com' });
    const badKey = await runCode('return { [input.email]: () => 1 };', { email: 'carol@example.com' }).then(() => undefined, (e: unknown) => e);
    expect((badKey as BlockFailure).message).toBe('code block output is not plain JSON');
    expect((badKey as BlockFailure).detail).toContain('carol@example.com');
  });

  it('stops an endless loop at the time limit, and the process lives on', async () => {
    expect(await failure('while (true) {}', {}, { timeoutMs: 100, memoryMb: 64 })).toBe('code block exceeded its time limit');
    await expect(runCode('return 1 + 1;', {}, limits)).resolves.toBe(2);
  });

  it.each([
    ['strings', 'let s = "x"; while (true) s += s;'],
    ['arrays', 'const a = []; while (true) a.push(new Array(100000).fill(1));'],
    ['objects', 'const a = []; while (true) a.push({ a: 1, b: [1, 2, 3] });'],
    ['recursion', 'function f() { return f(); } return f();'],
  ])('fails a memory blow-up (%s) at its memory or time limit, and the sandbox lives on', async (_label, code) => {
    expect(await failure(code, {}, { timeoutMs: 500, memoryMb: 16 })).toMatch(/memory limit|time limit|stack|string too long/);
    await expect(runCode('return "alive";', {})).resolves.toBe('alive');
  });

  it('runs blocks concurrently without one blocking another', async () => {
    const [slow, fast] = await Promise.allSettled([runCode('while (true) {}', {}, { timeoutMs: 300, memoryMb: 64 }), runCode('return 7;', {})]);
    expect(slow.status).toBe('rejected');
    expect(fast).toEqual({ status: 'fulfilled', value: 7 });
  });

  it.each([
    ['process', 'return typeof process;'],
    ['require', 'return typeof require;'],
    ['module import', 'return typeof import.meta;'],
    ['fetch', 'return typeof fetch;'],
    ['setTimeout', 'return typeof setTimeout;'],
    ['globalThis.Deno/Buffer', 'return [typeof Buffer, typeof Deno].join();'],
  ])('exposes no host access (%s)', async (_label, code) => {
    const result = await runCode(code, {}, limits).catch((error: BlockFailure) => failureText(error));
    expect(String(result)).toMatch(/undefined|SyntaxError/);
  });

  it('keeps nothing from one run to the next', async () => {
    await runCode('globalThis.leak = 42; return 1;', {}, limits);
    await expect(runCode('return typeof globalThis.leak;', {}, limits)).resolves.toBe('undefined');
  });

  it.each([
    ['a cycle', 'const a = { b: {} }; a.b.back = a; return a;', /output\.b\.back refers back to one of its parents/],
    ['a toJSON that never returns', 'return { toJSON() { while (true) {} } };', /output\.toJSON is a function/],
    ['a function', 'return function secret() { return 1; };', /output is a function/],
    ['a BigInt', 'return { n: 10n };', /output\.n is a BigInt/],
    ['a Date', 'return { when: new Date(0) };', /output\.when is a Date object/],
    ['NaN', 'return [1, NaN];', /output\[1\] is NaN/],
    ['an array hole', 'const a = [1]; a[2] = 3; return a;', /output\[1\] is undefined/],
    ['a NUL character', 'return { s: "a\\u0000b" };', /output\.s contains a NUL character/],
    ['an unpaired surrogate', 'return { s: "\\ud800" };', /output\.s contains an unpaired UTF-16 surrogate/],
    ['a key with NUL', 'return { ["k\\u0000"]: 1 };', /output has a key that contains a NUL/],
    ['nesting deeper than 64 levels', 'let o = {}; for (let i = 0; i < 100; i++) o = { o }; return o;', /nests deeper than 64 levels/],
  ])('fails an output that is not plain JSON (%s) with CODE_BLOCK_FAILED saying why', async (_label, code, why) => {
    const error = await runCode(code, {}).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(BlockFailure);
    expect(error).toMatchObject({ code: 'CODE_BLOCK_FAILED', message: expect.stringMatching(/^code block output (is not plain JSON|cannot be stored)$/) });
    expect(failureText(error as BlockFailure)).toMatch(why);
    expect(failureText(error as BlockFailure)).not.toContain('secret()');
  });

  it('returns plain JSON as it is: undefined properties are left out, a top-level undefined is null', async () => {
    await expect(runCode('return { a: undefined, b: [null, true, 1.5, "é😀"], c: Object.create(null) };', {})).resolves.toEqual({ b: [null, true, 1.5, 'é😀'], c: {} });
    await expect(runCode('return undefined;', {})).resolves.toBeNull();
  });

  it('refuses an output over the size limit with CODE_OUTPUT_TOO_LARGE', async () => {
    const small = createCodeSandbox(limits, { maxOutputBytes: 1024 });
    try {
      await expect(small.run('return { s: "x".repeat(2000) };', {}, 'org-a')).rejects.toMatchObject({ code: 'CODE_OUTPUT_TOO_LARGE', message: expect.stringContaining('SEQFLOW_CODE_MAX_OUTPUT_BYTES') });
      await expect(small.run('return { s: "x".repeat(900) };', {}, 'org-a')).resolves.toMatchObject({ s: expect.any(String) });
    } finally {
      await small.close();
    }
  });
});

describe('code sandbox shared by organizations', () => {
  it("one organization's endless loops never hold another organization's block back", async () => {
    const shared = createCodeSandbox(limits, { size: 2 });
    try {
      // Both workers up before the race, so start-up time plays no part.
      await Promise.all([shared.run('return 1;', {}, 'warm-1'), shared.run('return 1;', {}, 'warm-2')]);
      const finished: string[] = [];
      const loops = Array.from({ length: 20 }, (_, i) => shared.run('while (true) {}', {}, 'greedy', { timeoutMs: 1000 }).catch(() => finished.push(`greedy-${i}`)));
      const other = shared.run('return "done";', {}, 'other').then((value) => finished.push(`other:${String(value)}`));
      await other;
      expect(finished).toEqual(['other:done']);
      await shared.close();
      await Promise.allSettled(loops);
    } finally {
      await shared.close();
    }
  });

  it('a full queue refuses more with CODE_SANDBOX_BUSY, for that organization only', async () => {
    const shared = createCodeSandbox(limits, { size: 2, maxQueuedPerOwner: 2 });
    try {
      const held = [1, 2, 3].map(() => shared.run('while (true) {}', {}, 'greedy', { timeoutMs: 2000 }).catch((e: BlockFailure) => e.code));
      await expect(shared.run('return 1;', {}, 'greedy')).rejects.toMatchObject({ code: 'CODE_SANDBOX_BUSY' });
      await expect(shared.run('return 2;', {}, 'other')).resolves.toBe(2);
      await shared.close();
      // Closing ends every block in hand, running or waiting.
      await Promise.all(held);
    } finally {
      await shared.close();
    }
  });
});
