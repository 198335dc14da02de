import { routeModel } from '../domain/models/modelRoute.ts';
import { createHash } from 'node:crypto';
import { planStructuredOutput } from '../domain/execution/strictSchema.ts';
import { LLM_JUDGE_DEFAULT_THRESHOLD } from '../domain/testing/testCaseDefinition.ts';
import type { RecordedAssertionResult } from '../domain/testing/testRunEvents.ts';
import type { EngineDependencies } from '../execution/engineDependencies.ts';
import { creditBalance } from '../queries/creditQueries.ts';

const VERDICT_SCHEMA = {
  type: 'object',
  properties: { score: { type: 'number', minimum: 0, maximum: 1 }, rationale: { type: 'string' } },
  required: ['score', 'rationale'],
  additionalProperties: false,
};

/**
 * An llm_judge assertion: a model grades the run's result against the rubric and answers a score
 * (0-1) and a rationale. The model, the prompt's hash and the rationale are recorded; the tokens
 * used are returned for the caller to charge like any model call.
 */
export async function judge(
  deps: EngineDependencies,
  organizationId: string,
  assertion: { rubric: string; model?: string; threshold?: number },
  result: unknown,
): Promise<{ result: RecordedAssertionResult; tokens: number; model: string }> {
  const model = assertion.model ?? deps.settings.defaultModel;
  const prompt = `You grade the output of an automated pipeline against a rubric.\n\nRubric:\n${assertion.rubric}\n\nOutput (JSON):\n${JSON.stringify(result)}\n\nReply with a JSON object: {"score": a number from 0 (fails the rubric) to 1 (meets it fully), "rationale": a short explanation}.`;
  const promptHash = createHash('sha256').update(prompt).digest('hex');
  const threshold = assertion.threshold ?? LLM_JUDGE_DEFAULT_THRESHOLD;
  const failed = (reason: string, tokens = 0) => ({ result: { type: 'llm_judge', passed: false, score: 0, reason, judge: { model, promptHash, rationale: '' } }, tokens, model });
  if ((await creditBalance(deps.db, organizationId)) <= 0) return failed('the organization has no credits left for the judge');
  const account = await deps.providerFor(organizationId, routeModel(model).provider);
  if (!account) return failed('no model provider is configured for the judge');
  try {
    const verdict = await deps.llm.run({ blockName: 'llm_judge', model, prompt, attachments: [], output: { schema: VERDICT_SCHEMA, plan: planStructuredOutput(VERDICT_SCHEMA) }, settings: { systemPrompt: undefined, parameters: {} } }, account);
    if (verdict.kind !== 'output') return failed('the judge asked for tools', verdict.usage.totalTokens);
    const { score, rationale } = verdict.output as { score: number; rationale: string };
    const passed = score >= threshold;
    return {
      result: { type: 'llm_judge', passed, score, reason: `the judge scored ${score} (${passed ? 'at or above' : 'below'} ${threshold})`, judge: { model, promptHash, rationale } },
      tokens: verdict.usage.totalTokens,
      model,
    };
  } catch (error) {
    // The provider's own words stay in the service log: they may quote the request or the account,
    // and the reason is recorded in the log of events and answered over MCP.
    deps.logger.warn({ err: error, organizationId, model }, 'the llm judge could not answer');
    const code = (error as { code?: unknown }).code;
    return failed(`the judge could not answer (${typeof code === 'string' ? code : 'INTERNAL'}); the service log has the details`, (error as { usage?: { totalTokens: number } }).usage?.totalTokens ?? 0);
  }
}
