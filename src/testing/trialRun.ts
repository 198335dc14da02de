import { randomUUID } from 'node:crypto';
import { type AuthoringScope, requireFlow } from '../authoring/flowAuthoring.ts';
import type { CommandMetadata } from '../commands/commandHandler.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { Attachment } from '../domain/execution/attachment.ts';
import { commandsOf } from '../execution/engineDependencies.ts';
import { checkAttachments } from '../execution/attachmentGate.ts';
import { prepareExecution } from '../execution/flowEngine.ts';
import type { ExecutionOutcome } from '../execution/runSteps.ts';
import type { TestEngine } from './testRunner.ts';
import { runRequest } from '../execution/runRequest.ts';
import { resolveTarget, runOnTarget, stepsOfTarget } from './testTarget.ts';
import { answerFromScript, scriptedTools } from './scriptedToolResults.ts';
import { runWithAnsweredTools } from '../execution/answeredToolsRun.ts';

/** Which of a flow's steps a trial runs: production, the draft, or a version by number (default: production, else the latest version). */
export type TrialTarget = 'production' | 'draft' | number | undefined;

/**
 * An author's trial of a flow (MCP `run_flow`): an ordinary engine run of mode `test` (its own
 * stream, credits charged, never a webhook, never counted as production traffic) with no test case
 * behind it. With `production`, it is instead a production call of the production version (mode
 * `sync`, as `/execute` records it, its principal the assistant's), so that a backtest has recorded
 * inputs to replay. Its id is told through `onStarted` as soon as the run is recorded, so a caller
 * that stops waiting can still name it.
 */
export async function runTrial(
  engine: TestEngine,
  scope: AuthoringScope,
  input: { flowId: string; message: string | null; parameters: Record<string, unknown>; attachments: Attachment[]; target: TrialTarget; production?: boolean; toolResults?: Record<string, string>; onStarted?: (executionId: string) => void },
  metadata: CommandMetadata,
): Promise<ExecutionOutcome> {
  const flow = await requireFlow(commandsOf(engine), scope, input.flowId);
  if (input.production && input.target !== undefined && input.target !== 'production') {
    throw new ApiError('VALIDATION_FAILED', 'A production run runs the production version: leave target out (or "production"), or run the draft or a version as a trial without production');
  }
  if ((input.production || input.target === 'production') && !flow.productionVersionId) throw new ApiError('NO_PRODUCTION_VERSION', `Flow '${flow.slug}' has no production version: run the draft or a version number, or set one as production`);
  const executionId = randomUUID();
  const resolved = resolveTarget(flow, input.target === 'draft' ? { draft: true } : typeof input.target === 'number' ? { version: input.target } : {}, executionId);
  const mode = input.production ? 'sync' : 'test';
  await checkAttachments(input.attachments, resolved.steps, { guard: engine.guard, registry: engine.registry, defaultModel: engine.settings.defaultModel });
  const tools = scriptedTools(input.toolResults, 'the trial run');
  const request = runRequest(runOnTarget(flow, resolved), input, { executionId, mode, principal: metadata.principal, ...(tools ? { tools } : {}) });
  if (tools) {
    // Its tool calls answered from the script, through the one answered-tools loop.
    const answered = await runWithAnsweredTools(engine, request, { answer: answerFromScript(input.toolResults), loadSteps: stepsOfTarget(engine, resolved), onStarted: () => input.onStarted?.(executionId) });
    return answered.outcome;
  }
  const prepared = await prepareExecution(engine, request, { idLeavesEarly: true });
  // Told once the run is durably in the log: from then on get_test_run_trace can read it, whatever happens to the database.
  prepared.started.then(() => input.onStarted?.(executionId), () => undefined);
  return prepared.start();
}
