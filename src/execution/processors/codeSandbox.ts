import { type QuickJSWASMModule, newQuickJSWASMModule, shouldInterruptAfterDeadline } from 'quickjs-emscripten';
import { BlockFailure } from './blockFailure.ts';

/**
 * Runs a code block's JavaScript in QuickJS compiled to WebAssembly: a separate heap with its own
 * memory limit, interrupted at a deadline, with no host objects at all (no process, require, fs,
 * network or timers). The block's code is the body of a function of `input`; its return value,
 * which must be JSON, is the block's output. Each run gets a fresh runtime, so nothing leaks
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

export async function runCode(code: string, input: unknown, limits: CodeSandboxLimits): Promise<unknown> {
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
    // The input goes in as JSON text and is parsed inside the sandbox: no host object crosses over.
    const source = `(function (input) {\n${code}\n})(JSON.parse(${JSON.stringify(JSON.stringify(input ?? null))}))`;
    const result = context.evalCode(source, 'block.js');
    if (result.error) {
      const error = context.dump(result.error) as { name?: string; message?: string } | string;
      result.error.dispose();
      throw describe(error);
    }
    const value = context.dump(result.value);
    result.value.dispose();
    context.dispose();
    runtime.dispose();
    return value === undefined ? null : value;
  } catch (error) {
    // Not disposed on purpose: after a failure the runtime may be corrupt; the module goes with it.
    discardModule();
    if (error instanceof BlockFailure) throw error;
    throw new BlockFailure('CODE_BLOCK_FAILED', `code block failed: ${(error as Error).message}`);
  }
}

function describe(error: { name?: string; message?: string } | string): BlockFailure {
  if (typeof error === 'string') return new BlockFailure('CODE_BLOCK_FAILED', `code block threw: ${error}`);
  const message = error.message ?? String(error);
  if (error.name === 'InternalError' && /interrupted/i.test(message)) {
    return new BlockFailure('CODE_BLOCK_FAILED', 'code block exceeded its time limit');
  }
  if (/out of memory/i.test(message) || (error.name === 'InternalError' && /memory/i.test(message))) {
    return new BlockFailure('CODE_BLOCK_FAILED', 'code block exceeded its memory limit');
  }
  if (error.name === 'RangeError' && /stack/i.test(message)) return new BlockFailure('CODE_BLOCK_FAILED', 'code block exceeded its stack limit');
  return new BlockFailure('CODE_BLOCK_FAILED', `code block threw ${error.name ?? 'Error'}: ${message}`);
}
