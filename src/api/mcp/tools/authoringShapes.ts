import { z } from 'zod';
import { blockKinds, processorTypes } from '../../../domain/blocks/blockKinds.ts';

/** The argument and answer shapes the authoring tools share. */
export const flowId = z.string().min(1).describe('The flow, as hydrate_project or create_flow named it');
export const stepId = z.string().min(1).describe("A block's step_id, as hydrate_project or add_block named it");
export const warnings = z.array(z.string()).describe('Things that will go wrong at run time unless changed');
export const edited = { flow_id: z.string(), step_id: z.string(), warnings };
export const write = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };

/** What the kinds tell an assistant adding a block (add_block) or editing one (update_block, update_block_draft), in the registry's order. */
export const kindHints = (moment: 'adding' | 'editing') =>
  processorTypes
    .map((type) => blockKinds[type].mcpHints[moment])
    .filter((hint) => hint !== '')
    .join(' ');

/** The text each kind's draft holds, as update_block_draft describes it: "the prompt of an llm block, the code of a code block". */
export const draftTexts = () =>
  processorTypes
    .flatMap((type) => {
      const text = blockKinds[type].draftText;
      return text ? [text.described] : [];
    })
    .join(', ');
