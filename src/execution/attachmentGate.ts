import { blockKinds } from '../domain/blocks/blockKinds.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { Attachment } from '../domain/execution/attachment.ts';
import { checkAttachmentsStatically } from '../domain/execution/attachmentRules.ts';
import { type StoredStep, blocksOfStep } from '../domain/flows/flowDefinition.ts';
import { type AddressGuard, BlockedAddressError } from '../outbound/addressGuard.ts';
import type { ModelRegistry } from './modelRegistry.ts';

/**
 * Every attachment rule, in the spec's order, before any work or event of a run: count, scheme,
 * URL length, MIME type, filename, host (resolved through the outbound guard), and then that each
 * llm block that will receive the images has a model that accepts their types.
 */
export async function checkAttachments(
  attachments: Attachment[],
  steps: StoredStep[],
  deps: { guard: AddressGuard; registry: ModelRegistry; defaultModel: string },
): Promise<void> {
  if (attachments.length === 0) return;
  checkAttachmentsStatically(attachments);
  for (const [index, attachment] of attachments.entries()) {
    try {
      await deps.guard.check(attachment.url);
    } catch (error) {
      if (!(error instanceof BlockedAddressError)) throw error;
      throw new ApiError('ATTACHMENT_BLOCKED_HOST', `attachments[${index}].url: host not allowed (${error.message})`, { index });
    }
  }
  for (const block of steps.flatMap((step) => blocksOfStep(step))) {
    if (!blockKinds[block.processor_type].receivesAttachments(block)) continue;
    const model = block.model ?? deps.defaultModel;
    const refused = attachments.find((a) => !deps.registry.accepts(model, a.mime_type));
    if (refused) {
      throw new ApiError('MODEL_MIME_INCOMPATIBLE', `Block '${block.name}' uses model ${model}, which does not accept ${refused.mime_type} images`, {
        step_id: block.id,
        step_name: block.name,
        model,
        mime_type: refused.mime_type,
      });
    }
  }
}
