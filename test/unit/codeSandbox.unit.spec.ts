import { afterAll, describe, expect, it } from 'vitest';
import { createCodeSandbox } from '../../src/execution/processors/codeSandboxPool.ts';

const limits = { timeoutMs: 1000, memoryMb: 64 };
const sandbox = createCodeSandbox(limits);
afterAll(() => sandbox.close());
const runCode = (code: string, input: unknown, l = limits) => sandbox.run(code, input, l);
const failure = (code: string, input: unknown = {}, l = limits) => runCode(code, input, l).then(() => 'no failure', (error: Error) => error.message);

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
    expect(await failure('throw new TypeError("bad input");')).toBe('code block threw TypeError: bad input');
    expect(await failure('return input.a.b.c;')).toMatch(/^code block threw TypeError: /);
    expect(await failure('this is not javascript')).toMatch(/^code block threw SyntaxError: /);
  });

  it('stops an endless loop at the time limit, and the process lives on', async () => {
    const started = Date.now();
    expect(await failure('while (true) {}', {}, { timeoutMs: 100, memoryMb: 64 })).toBe('code block exceeded its time limit');
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(runCode('return 1 + 1;', {}, limits)).resolves.toBe(2);
  });

  it.each([
    ['strings', 'let s = "x"; while (true) s += s;'],
    ['arrays', 'const a = []; while (true) a.push(new Array(100000).fill(1));'],
    ['objects', 'const a = []; while (true) a.push({ a: 1, b: [1, 2, 3] });'],
    ['recursion', 'function f() { return f(); } return f();'],
  ])('fails a memory blow-up (%s) within the time limit plus grace, and the sandbox lives on', async (_label, code) => {
    const started = Date.now();
    expect(await failure(code, {}, { timeoutMs: 500, memoryMb: 16 })).toMatch(/memory limit|time limit|stack|string too long/);
    expect(Date.now() - started).toBeLessThan(4000);
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
    const result = await runCode(code, {}, limits).catch((error: Error) => error.message);
    expect(String(result)).toMatch(/undefined|SyntaxError/);
  });

  it('keeps nothing from one run to the next', async () => {
    await runCode('globalThis.leak = 42; return 1;', {}, limits);
    await expect(runCode('return typeof globalThis.leak;', {}, limits)).resolves.toBe('undefined');
  });
});
