import { type ProcessorType, blockKinds } from '../blocks/blockKinds.ts';
import { placeholderCanRender, placeholdersOf } from '../templating/template.ts';

/** A draft block as the warnings look at it. */
export interface WarnedBlock {
  step_id: string;
  name: string;
  processor_type: ProcessorType;
  model: string | null;
  prompt: string | null;
}

/**
 * What will go wrong at run time unless changed, though the draft may be saved (and some of it
 * published): a placeholder that always renders empty (`{{parameterz.x}}`, `{{message.text}}`), an
 * llm block without a prompt (publishing refuses it), a model the service does not know (sent to
 * the provider as named, treated as text-only).
 */
export function draftWarnings(blocks: readonly WarnedBlock[], knowsModel: (model: string) => boolean): string[] {
  const warnings: string[] = [];
  for (const block of blocks) {
    const at = `block '${block.name}' (${block.step_id})`;
    const placeholders = placeholdersOf(block.prompt ?? '')
      .filter((expression) => !placeholderCanRender(expression))
      .map((expression) => `${at}: the placeholder {{${expression}}} always renders empty; use {{message}}, {{previous_output}} or {{previous_output.field}}, {{parameters.name}}, or an earlier block's {{steps.<name>.output}} or {{steps.<name>.output.field}}.`);
    // The kind's own (an llm block without a prompt, a model nobody knows) go where it puts them.
    warnings.push(...blockKinds[block.processor_type].draftWarnings(block, at, placeholders, knowsModel));
  }
  return warnings;
}
