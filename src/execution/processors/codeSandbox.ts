import { type QuickJSWASMModule, newQuickJSWASMModule, shouldInterruptAfterDeadline } from 'quickjs-emscripten';
import { BlockFailure } from './blockFailure.ts';

/**
 * Runs a code block's JavaScript in QuickJS compiled to WebAssembly: a separate heap with its own
 * memory limit, interrupted at a deadline, with no host objects at all (no process, require, fs,
 * network or timers). The block's code is the body of a function of `input`; its return value,
 * which must be plain JSON, is the block's output. Each run gets a fresh runtime, so nothing leaks
 * between runs. A run that fails (a throw, the deadline, the memory limit) may leave the WebAssembly
 * module in a broken state (QuickJS aborts when a runtime that hit its memory limit is disposed), so
 * after any failure the module is dropped and the next run instantiates a fresh one.
 */
export interface CodeSandboxLimits {
  timeoutMs: number;
  memoryMb: number;
}

let current: Promise<QuickJSWASMModule> | undefined;
const acquireModule = () => (current ??= newQuickJSWASMModule());

/** Instantiates the WebAssembly module ahead of the first run: a worker says it is ready only then. */
export async function prepareSandbox(): Promise<void> {
  await acquireModule();
}

/** Whether the module is loaded (or loading): false after a failed run dropped it. */
export const sandboxLoaded = (): boolean => current !== undefined;

/** Runs the block and returns its output as JSON text (checked to be plain JSON inside the sandbox). */
export async function runCode(code: string, input: unknown, limits: CodeSandboxLimits): Promise<string> {
  const modulePromise = acquireModule();
  const module = await modulePromise;
  const discardModule = () => {
    if (current === modulePromise) current = undefined;
  };
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(limits.memoryMb * 1024 * 1024);
  runtime.setMaxStackSize(1024 * 1024);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + limits.timeoutMs));
  const context = runtime.newContext();
  try {
    // The input goes in as JSON text and is parsed inside the sandbox, and the output comes back out
    // as JSON text made by the sandbox's own checked serializer: no object crosses over either way.
    const source = `${SERIALIZER}\n__seqflowSerialize((function (input) {\n${code}\n})(JSON.parse(${JSON.stringify(JSON.stringify(input ?? null))})))`;
    const result = context.evalCode(source, 'block.js');
    if (result.error) {
      const error = context.dump(result.error) as { name?: string; message?: string } | string | null | undefined;
      result.error.dispose();
      throw describe(error);
    }
    const json = context.getString(result.value);
    result.value.dispose();
    context.dispose();
    runtime.dispose();
    return json;
  } catch (error) {
    // Not disposed on purpose: after a failure the runtime may be corrupt; the module goes with it.
    discardModule();
    if (error instanceof BlockFailure) throw error;
    throw new BlockFailure('CODE_BLOCK_FAILED', 'code block failed', { detail: (error as Error).message });
  }
}

/**
 * Runs inside the sandbox before the block's code, so it holds the original built-ins whatever the
 * code changes later. It accepts plain JSON only: null, booleans, finite numbers, strings, arrays and
 * plain objects (an undefined property is left out, as JSON.stringify does), at most 64 levels deep,
 * and throws a CodeOutputError naming the first path that is not (a function, a BigInt, a cycle, a
 * Date or other class instance, NaN...). toJSON is never called: a plain object cannot carry one.
 */
const SERIALIZER = `const __seqflowSerialize = (() => {
  const stringify = JSON.stringify, getProto = Object.getPrototypeOf, isArray = Array.isArray, keys = Object.keys, objectProto = Object.prototype, finite = Number.isFinite;
  const fail = (message) => { const e = new Error(message); e.name = 'CodeOutputError'; throw e; };
  const at = (path, key) => typeof key === 'number' ? path + '[' + key + ']' : /^[A-Za-z_$][\\w$]*$/.test(key) ? path + '.' + key : path + '[' + stringify(key) + ']';
  const ancestors = [];
  const walk = (value, path) => {
    switch (typeof value) {
      case 'string': case 'boolean': return;
      case 'number': if (!finite(value)) fail(path + ' is ' + value + ', which JSON cannot carry'); return;
      case 'bigint': fail(path + ' is a BigInt; return it as a string or a number');
      case 'function': fail(path + ' is a function');
      case 'symbol': fail(path + ' is a symbol');
      case 'undefined': fail(path + ' is undefined');
    }
    if (value === null) return;
    for (let i = 0; i < ancestors.length; i++) if (ancestors[i] === value) fail(path + ' refers back to one of its parents (a cycle)');
    if (ancestors.length >= 64) fail(path + ' nests deeper than 64 levels');
    ancestors[ancestors.length] = value;
    if (isArray(value)) {
      for (let i = 0; i < value.length; i++) walk(value[i], at(path, i));
    } else {
      const proto = getProto(value);
      if (proto !== objectProto && proto !== null) fail(path + ' is a ' + ((proto && proto.constructor && proto.constructor.name) || 'non-plain') + ' object, not plain JSON');
      const names = keys(value);
      for (let i = 0; i < names.length; i++) if (value[names[i]] !== undefined) walk(value[names[i]], at(path, names[i]));
    }
    ancestors.length = ancestors.length - 1;
  };
  return (value) => { if (value === undefined) return 'null'; walk(value, 'output'); return stringify(value); };
})();`;

function describe(error: { name?: string; message?: string } | string | null | undefined): BlockFailure {
  // Out of memory, QuickJS may be unable to allocate an error object and throws null instead.
  if (error === null || error === undefined) return new BlockFailure('CODE_BLOCK_FAILED', 'code block exceeded its memory limit');
  if (typeof error === 'string') return new BlockFailure('CODE_BLOCK_FAILED', 'code block threw', { detail: error });
  const message = error.message ?? String(error);
  if (error.name === 'InternalError' && /interrupted/i.test(message)) {
    return new BlockFailure('CODE_BLOCK_FAILED', 'code block exceeded its time limit');
  }
  if (/out of memory/i.test(message) || (error.name === 'InternalError' && /memory/i.test(message))) {
    return new BlockFailure('CODE_BLOCK_FAILED', 'code block exceeded its memory limit');
  }
  if (error.name === 'RangeError' && /stack/i.test(message)) return new BlockFailure('CODE_BLOCK_FAILED', 'code block exceeded its stack limit');
  // The path named can hold the caller's data (an object's keys): outside words, the detail.
  if (error.name === 'CodeOutputError') return new BlockFailure('CODE_BLOCK_FAILED', 'code block output is not plain JSON', { detail: message });
  // The error's name is the code's too (a class it made): both are outside words.
  return new BlockFailure('CODE_BLOCK_FAILED', 'code block threw', { detail: `${error.name ?? 'Error'}: ${message}` });
}
