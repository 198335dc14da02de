import { z } from 'zod';

/** The argument and answer shapes the authoring tools share. */
export const flowId = z.string().min(1).describe('The flow, as hydrate_project or create_flow named it');
export const stepId = z.string().min(1).describe("A block's step_id, as hydrate_project or add_block named it");
export const warnings = z.array(z.string()).describe('Things that will go wrong at run time unless changed');
export const edited = { flow_id: z.string(), step_id: z.string(), warnings };
export const write = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };

/**
 * What a code block is, for the tools that write one: the contract the engine keeps
 * (docs/execution.md), so an assistant need not guess it.
 */
export const CODE_BLOCK_CONTRACT =
  "A code block's code is the body of a JavaScript function of `input`: `input.message` (the run's message), `input.previous_output` (the previous step's output; absent for the first step; the item inside a loop) `input.parameters` (the run's parameters) and `input.steps.<block>` (the output of a block of an earlier step, by its name). Its `return` value is the step's output and must be plain JSON (null, booleans, finite numbers, strings, arrays, plain objects; no Date, Map, class instances, NaN or functions), at most 1 MiB as JSON. It runs in a sandbox with no network, files, timers, require or process, a memory limit and a time limit (CODE_BLOCK_FAILED, CODE_OUTPUT_TOO_LARGE otherwise). Example: `return { words: input.message.split(' ').length };`";
