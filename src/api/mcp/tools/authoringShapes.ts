import { z } from 'zod';

/** The argument and answer shapes the authoring tools share. */
export const flowId = z.string().min(1).describe('The flow, as hydrate_project or create_flow named it');
export const stepId = z.string().min(1).describe("A block's step_id, as hydrate_project or add_block named it");
export const warnings = z.array(z.string()).describe('Things that will go wrong at run time unless changed');
export const edited = { flow_id: z.string(), step_id: z.string(), warnings };
export const write = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
