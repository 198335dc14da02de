/** A draft block as the warnings look at it. */
export interface WarnedBlock {
  step_id: string;
  name: string;
  processor_type: 'llm' | 'passthrough' | 'code';
  model: string | null;
  prompt: string | null;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Whether a placeholder can ever render: `message`, `previous_output[.path]`, `parameters.path` (template.ts). */
function placeholderCanRender(expression: string): boolean {
  const [root, ...path] = expression.split('.');
  if (!/^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/.test(expression)) return false;
  if (root === 'message') return path.length === 0;
  if (root === 'parameters') return path.length > 0;
  return root === 'previous_output';
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
    for (const [, expression] of (block.prompt ?? '').matchAll(PLACEHOLDER)) {
      if (!placeholderCanRender(expression!)) warnings.push(`${at}: the placeholder {{${expression}}} always renders empty; use {{message}}, {{previous_output}} or {{previous_output.field}}, or {{parameters.name}}.`);
    }
    if (block.processor_type === 'llm' && block.model !== null && !knowsModel(block.model)) {
      warnings.push(`${at} uses the model '${block.model}', which the service does not know: it is sent to the provider as named and treated as text-only (hydrate_project lists the known models).`);
    }
  }
  return warnings;
}
