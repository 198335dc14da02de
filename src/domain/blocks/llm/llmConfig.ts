import { z } from 'zod';
import { llmSettingsShape } from './llmSettings.ts';
import { serverToolsShape } from './serverTools.ts';

/** An llm block's `processor_config`: its tools (the caller's, and the service's own), attachments and fallbacks, and the model settings (llmSettings.ts). */
export const llmConfigShape = {
  tools_enabled: z.boolean().optional(),
  max_tool_iterations: z.number().int().min(1).max(1000).optional(),
  /** llm blocks receive the request's image attachments unless this is false. */
  receive_attachments: z.boolean().optional(),
  /** llm blocks: the models tried in turn when the block's model's provider fails (5xx, 429 after its retries, timeout, unreachable). */
  fallback_models: z.array(z.string().min(1).max(200)).min(1).max(3).optional(),
  /** Tools the service runs itself (an addition to the spec): offered to the model beside the caller's, their calls answered without a pause. */
  server_tools: serverToolsShape.optional(),
  ...llmSettingsShape,
};
