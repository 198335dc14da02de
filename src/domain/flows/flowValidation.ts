import { codeSyntaxError } from './codeSyntax.ts';
import { Ajv } from 'ajv';
import { llmSettingsProblems, llmSettingsShape } from './llmSettings.ts';
import { PROVIDER_SETTINGS, type ProviderName, routeModel } from '../models/modelRoute.ts';
import { type StoredBlock, type StoredStep, blockPath, blocksOfStep, stepKind } from './flowDefinition.ts';
import { stepReferenceProblems } from './stepReferences.ts';
import { parseRunCondition } from './runCondition.ts';
import { formatPath } from '../validation/issuePath.ts';

/**
 * The providers this service has an account with, when the publisher knows them: a model routed to
 * another provider is refused at publish rather than failing every run. The default provider
 * (`openai`) is never refused: an organization may bring its own key for it after publishing.
 */
export interface PublishContext {
  providers?: readonly ProviderName[];
}

/**
 * What publishing checks beyond the file's shape. Returns every problem with its path; an empty
 * list means the draft can become a version.
 */
export function validateFlowForPublish(steps: StoredStep[], context: PublishContext = {}): string[] {
  const problems: string[] = [];
  if (steps.length === 0) problems.push('steps: a flow needs at least one step');

  const seen = new Map<string, string>();
  steps.forEach((step, stepIndex) => {
    const kind = stepKind(step);
    blocksOfStep(step).forEach((block, blockIndex) => {
      const at = blockPath(kind, stepIndex, blockIndex);
      // The block by its name too: `steps[1].parallel[0]` alone leaves the reader counting.
      const path = `${at} (block '${block.name}')`;
      const earlier = seen.get(block.name);
      if (earlier) problems.push(`${path}.name: block name '${block.name}' is already used at ${earlier}`);
      else seen.set(block.name, at);
      problems.push(...validateBlock(block, path), ...unreachableModels(block, path, context));
    });
  });
  problems.push(...runConditionProblems(steps), ...stepReferenceProblems(steps));
  return problems;
}

function validateBlock(block: StoredBlock, path: string): string[] {
  const problems: string[] = [];
  if (block.processor_type === 'llm' && !block.prompt?.trim()) problems.push(`${path}.prompt: llm blocks need a prompt`);
  if (block.processor_type === 'code' && !block.code?.trim()) problems.push(`${path}.code: code blocks need code`);
  else if (block.processor_type === 'code') {
    const syntax = codeSyntaxError(block.code!);
    if (syntax) problems.push(`${path}.code: does not parse: ${syntax}`);
  }
  if (block.processor_config?.tools_enabled && block.processor_type !== 'llm') {
    problems.push(`${path}.processor_config.tools_enabled: only llm blocks can call tools`);
  }
  const settings = Object.keys(llmSettingsShape).filter((key) => block.processor_config?.[key as keyof typeof llmSettingsShape] !== undefined);
  if (block.processor_type !== 'llm' && settings.length > 0) problems.push(`${path}.processor_config: ${settings.join(', ')}: only llm blocks take model settings`);
  // A block without a model runs on the service's default, known only when it runs (checked then).
  if (block.processor_type === 'llm' && block.model && block.processor_config) {
    problems.push(...llmSettingsProblems(block.model, block.processor_config).map((problem) => `${path}.processor_config.${problem}`));
  }
  // A fallback takes the block's settings too: each must be able to.
  for (const fallback of block.processor_config?.fallback_models ?? []) {
    if (block.processor_type !== 'llm') problems.push(`${path}.processor_config.fallback_models: only llm blocks have models to fall back from`);
    else problems.push(...llmSettingsProblems(fallback, block.processor_config ?? {}).map((problem) => `${path}.processor_config.fallback_models (${fallback}): ${problem}`));
  }
  if (block.output_schema !== undefined) problems.push(...validateOutputSchema(block.output_schema, `${path}.output_schema`));
  return problems;
}

function unreachableModels(block: StoredBlock, path: string, { providers }: PublishContext): string[] {
  if (!providers || block.processor_type !== 'llm') return [];
  const named = [...(block.model ? [{ model: block.model, at: `${path}.model` }] : []), ...(block.processor_config?.fallback_models ?? []).map((model) => ({ model, at: `${path}.processor_config.fallback_models (${model})` }))];
  return named.flatMap(({ model, at }) => {
    const { provider } = routeModel(model);
    if (provider === 'openai' || providers.includes(provider)) return [];
    return [`${at}: ${model} goes to the provider ${provider}, which this service has no account with: set ${PROVIDER_SETTINGS[provider]}, or choose a model of a configured provider`];
  });
}

function validateOutputSchema(schema: Record<string, unknown>, path: string): string[] {
  if (schema.type !== 'object') return [`${path}: must be a JSON Schema with "type": "object"`];
  // A fresh instance per check: Ajv caches by $id, and one flow's schemas must not clash with another's.
  const ajv = new Ajv({ strict: false, allErrors: true });
  if (!ajv.validateSchema(schema)) {
    return [`${path}: not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: 'schema' })}`];
  }
  try {
    ajv.compile(schema);
    return [];
  } catch (error) {
    return [`${path}: not a valid JSON Schema: ${(error as Error).message}`];
  }
}

/** Conditions that do not parse, or use more of JSONata than a condition may (runCondition.ts). */
function runConditionProblems(steps: readonly StoredStep[]): string[] {
  return steps.flatMap((step, stepIndex) => {
    const kind = stepKind(step);
    const conditions = [
      ...('parallel' in step ? [{ at: formatPath(['steps', stepIndex, 'run_if']), condition: step.run_if }] : []),
      ...blocksOfStep(step).map((block, blockIndex) => ({ at: `${blockPath(kind, stepIndex, blockIndex)} (block '${block.name}').run_if`, condition: block.run_if })),
    ];
    return conditions.flatMap(({ at, condition }) => {
      if (condition === undefined) return [];
      const parsed = parseRunCondition(condition);
      return parsed.ok ? [] : [`${at}: the condition ${parsed.problem}`];
    });
  });
}
