import { placeholderCanRender, placeholdersOf } from '../templating/template.ts';

/** A draft block as the warnings look at it. */
export interface WarnedBlock {
  step_id: string;
  name: string;
  processor_type: 'llm' | 'passthrough' | 'code';
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
    if (block.processor_type === 'llm' && !block.prompt?.trim()) warnings.push(`${at} has no prompt: an llm block needs one before the flow can be published.`);
    for (const expression of placeholdersOf(block.prompt ?? '')) {
      if (!placeholderCanRender(expression)) warnings.push(`${at}: the placeholder {{${expression}}} always renders empty; use {{message}}, {{previous_output}} or {{previous_output.field}}, {{parameters.name}}, or an earlier block's {{steps.<name>.output}} or {{steps.<name>.output.field}}.`);
    }
    if (block.processor_type === 'llm' && block.model !== null && !knowsModel(block.model)) {
      warnings.push(`${at} uses the model '${block.model}', which the service does not know: it is sent to the provider as named and treated as text-only (hydrate_project lists the known models).`);
    }
  }
  return warnings;
}
