import { z } from 'zod';
import { llmSettingsShape } from './llmSettings.ts';

/** An llm block's `processor_config`: its tools, attachments and fallbacks, and the model settings (llmSettings.ts). */
export const llmConfigShape = {
  tools_enabled: z.boolean().optional(),
  max_tool_iterations: z.number().int().min(1).max(1000).optional(),
  /** llm blocks receive the request's image attachments unless this is false. */
  receive_attachments: z.boolean().optional(),
  /** llm blocks: the models tried in turn when the block's model's provider fails (5xx, 429 after its retries, timeout, unreachable). */
  fallback_models: z.array(z.string().min(1).max(200)).min(1).max(3).optional(),
  ...llmSettingsShape,
};
