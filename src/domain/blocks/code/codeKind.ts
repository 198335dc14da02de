import { type BlockKind, type NoConfig, inputView } from '../blockKind.ts';
import { codeReferences } from './codeReferences.ts';
import { codeSyntaxError } from './codeSyntax.ts';

/**
 * What a code block is, for the tools that write one: the contract the engine keeps
 * (docs/execution.md), so an assistant need not guess it.
 */
const CODE_BLOCK_CONTRACT =
  "A code block's code is the body of a JavaScript function of `input`: `input.message` (the run's message), `input.previous_output` (the previous step's output; absent for the first step; the item inside a loop) `input.parameters` (the run's parameters) and `input.steps.<block>` (the output of a block of an earlier step, by its name). Its `return` value is the step's output and must be plain JSON (null, booleans, finite numbers, strings, arrays, plain objects; no Date, Map, class instances, NaN or functions), at most 1 MiB as JSON. It runs in a sandbox with no network, files, timers, require or process, a memory limit and a time limit (CODE_BLOCK_FAILED, CODE_OUTPUT_TOO_LARGE otherwise). Example: `return { words: input.message.split(' ').length };`";

/**
 * `code`: JavaScript run in the sandbox on `{message, previous_output, parameters, steps}`, its
 * return value the step's output. Run by src/execution/blocks/codeRunner.ts.
 */
export const codeKind: BlockKind<NoConfig> = {
  fields: ['code'],
  configShape: {},
  draftText: { field: 'code', described: 'the code of a code block' },
  callsTools: false,
  standsAlone: false,
  receivesAttachments: () => false,
  fieldProblems(block, path) {
    if (!block.code?.trim()) return [`${path}.code: code blocks need code`];
    const syntax = codeSyntaxError(block.code);
    return syntax ? [`${path}.code: does not parse: ${syntax}`] : [];
  },
  foreignUse: () => [],
  contextProblems: () => [],
  references: (block) => (block.code ? codeReferences(block.code) : { names: [], all: false }),
  draftWarnings: (_block, _at, placeholders) => placeholders,
  stepView: inputView,
  mcpHints: { adding: CODE_BLOCK_CONTRACT, editing: CODE_BLOCK_CONTRACT },
};
