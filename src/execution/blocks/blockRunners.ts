import type { ProcessorType } from '../../domain/blocks/blockKinds.ts';
import { runApprovalBlock } from './approvalRunner.ts';
import type { BlockRunner } from './blockRunner.ts';
import { runCodeBlock } from './codeRunner.ts';
import { runFlowBlock } from './flowRunner.ts';
import { runHttpBlock } from './httpRunner.ts';
import { runLlmBlock } from './llmRunner.ts';
import { runPassthroughBlock } from './passthroughRunner.ts';

/**
 * How each kind runs, by its `processor_type`: the engine's one lookup. Its type asks for a runner
 * for every kind of the registry (src/domain/blocks/blockKinds.ts), so a kind cannot be added
 * without one.
 */
export const blockRunners: { readonly [Type in ProcessorType]: BlockRunner } = {
  llm: runLlmBlock,
  passthrough: runPassthroughBlock,
  code: runCodeBlock,
  http: runHttpBlock,
  approval: runApprovalBlock,
  flow: runFlowBlock,
};
