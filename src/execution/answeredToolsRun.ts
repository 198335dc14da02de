import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { StoredStep } from '../domain/flows/flowDefinition.ts';
import type { EngineDependencies } from './engineDependencies.ts';
import { type ExecutionRequest, prepareExecution, prepareResume } from './flowEngine.ts';
import type { ExecutionOutcome } from './runSteps.ts';

/** A run gives up answering tool calls after this many rounds (a model that keeps asking). */
export const MAX_ANSWERED_ROUNDS = 50;

type Paused = Extract<ExecutionOutcome, { status: 'paused' }>;

/** What answers one pause: a tool message per call, or the calls it cannot answer (the run stops there, paused). */
export type ToolAnswers = { messages: { role: 'tool'; tool_call_id: string; content: string }[] } | { unanswered: string[] };

/**
 * The one loop for runs whose tool calls are answered in the service rather than by a caller (a test
 * case's scripted results, a backtest's recorded ones): the run is started, and while it pauses,
 * resumed with `answer`'s messages, at most MAX_ANSWERED_ROUNDS times. Each resume goes through the
 * engine's own path (its race decided by its append before any model call). Answers the last
 * outcome, with the calls `answer` could not answer when it stopped for them.
 */
export async function runWithAnsweredTools(
  engine: EngineDependencies,
  request: ExecutionRequest,
  options: { answer: (pause: Paused) => ToolAnswers; loadSteps: (versionId: string) => Promise<StoredStep[]>; onStarted?: () => void },
): Promise<{ outcome: ExecutionOutcome; unanswered: string[] }> {
  const prepared = await prepareExecution(engine, request);
  if (options.onStarted) prepared.started.then(options.onStarted, () => undefined);
  let outcome = await prepared.start();
  for (let round = 0; outcome.status === 'paused' && request.tools && round < MAX_ANSWERED_ROUNDS; round++) {
    const answers = options.answer(outcome);
    if ('unanswered' in answers) return { outcome, unanswered: answers.unanswered };
    const resumed = await prepareResume(engine, {
      executionId: request.executionId,
      flowId: request.flowId,
      pausedAtStep: outcome.pausedAtStep,
      toolCallMessages: [...(outcome.toolCallMessages as ChatCompletionMessageParam[]), ...answers.messages],
      tools: request.tools,
      followed: false,
      principal: request.principal,
      loadSteps: options.loadSteps,
    });
    outcome = await resumed.start();
  }
  return { outcome, unanswered: [] };
}
