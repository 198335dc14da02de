import { failureText } from '../../../domain/execution/failureMessage.ts';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { attachmentSchema } from '../../../domain/execution/attachment.ts';
import { runStatuses } from '../../../domain/execution/runStatus.ts';
import { truncateStrings } from '../../../domain/execution/truncate.ts';
import type { ExecutionOutcome } from '../../../execution/runSteps.ts';
import { type ToolContext, answer } from '../toolContext.ts';
import { flowId } from './authoringShapes.ts';
import { DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS, keepRunning, startThenWaitAtMost } from './testRunWaiting.ts';
import { runModes } from '../../../domain/execution/executionEvents.ts';
import { blocksOfStep } from '../../../domain/flows/flowDefinition.ts';

/** Long strings in a run's result are cut for the assistant's context, with a marker (get_test_run_trace reads it whole). */
const RESULT_STRINGS = 2000;

const modes = runModes;

/** Running a flow as an author tries it, and a flow's runs, as an assistant looks for what went wrong lately. */
export function registerRunTools(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    'run_flow',
    {
      title: 'Run a flow',
      description:
        'Runs a flow once on an input, as a trial (mode test: calls models, spends credits, never a webhook): its production version, its draft, or a version number. With production: true it is a production call of the production version instead (recorded as /execute records one, marked as made by the assistant): backtest_version replays such runs. Waits at most wait_seconds; flow_run_id is always returned, so a run still going can be read later with get_test_run_trace. A flow whose blocks call tools needs tool_results (tool name -> the content a caller would return): those tools are offered to the model and its calls answered from them; without, the model is offered no tools (a warning says so).',
      inputSchema: {
        flow_id: flowId,
        input: z.strictObject({
          message: z.string().describe('The {{message}} of the run'),
          parameters: z.record(z.string(), z.unknown()).optional().describe('The {{parameters.*}} of the run'),
          attachments: z.array(attachmentSchema).max(10).optional().describe('Image URLs, as /execute takes them'),
        }),
        target: z.union([z.enum(['production', 'draft']), z.number().int().min(1)]).optional().describe('production (default: production, else the latest version), draft, or a version number'),
        production: z.boolean().optional().describe('Record a production run of the production version (so a backtest has inputs), not a trial'),
        wait_seconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).optional().describe(`How long to wait for the run (default ${DEFAULT_WAIT_SECONDS})`),
        tool_results: z.record(z.string(), z.string().max(256 * 1024)).optional().describe('For flows with tools: tool name -> the content a caller would return'),
      },
      outputSchema: {
        flow_run_id: z.string(),
        warnings: z.array(z.string()).optional().describe('What this trial did not exercise'),
        status: z.enum(['running', 'completed', 'failed', 'paused', 'waiting']),
        waiting_for: z.object({ step_id: z.string(), due_at: z.string() }).optional().describe('When waiting (a production run at an approval block): where; list_approvals and decide_approval take it from there'),
        result: z.unknown().optional().describe('The run\'s result, once completed (long strings cut)'),
        error: z.object({ code: z.string(), message: z.string(), block_name: z.string().nullable() }).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args) => answer(ctx, () => runFlow(ctx, args)),
  );

  server.registerTool(
    'list_runs',
    {
      title: 'List a flow\'s runs',
      description: "A flow's runs of every kind, newest first: production calls (sync, async jobs, step) and test runs. Read one with get_test_run_trace(flow_run_id). Page on with next_cursor.",
      inputSchema: {
        flow_id: flowId,
        status: z.array(z.enum(runStatuses)).optional().describe('Only runs in these statuses (e.g. ["failed"])'),
        mode: z.array(z.enum(modes)).optional().describe('Only these kinds: sync (/execute), async (/jobs), step (/step), test'),
        limit: z.number().int().min(1).max(100).optional().describe('Runs per page (default 20)'),
        cursor: z.string().optional().describe('next_cursor of the previous page'),
      },
      outputSchema: {
        runs: z.array(
          z.object({
            flow_run_id: z.string(),
            version_number: z.number().int(),
            mode: z.enum(modes),
            status: z.enum(runStatuses),
            failure_code: z.string().nullable(),
            test_run_id: z.string().nullable(),
            started_via: z.string().nullable().describe('mcp: an assistant made it (run_flow production: true); console: an operator (a rerun); null: a caller with an API key'),
            schedule_id: z.string().nullable().describe('The schedule whose firing started this job (list_schedules), or null'),
            created_at: z.string(),
            ended_at: z.string().nullable(),
            duration_ms: z.number().nullable(),
          }),
        ),
        next_cursor: z.string().nullable(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(ctx, () =>
        ctx.services.authoring.listRuns(ctx.scope, {
          flowId: args.flow_id,
          limit: args.limit ?? 20,
          ...(args.status ? { status: args.status } : {}),
          ...(args.mode ? { mode: args.mode } : {}),
          ...(args.cursor ? { cursor: args.cursor } : {}),
        }),
      ),
  );
}

/** `list_schedules`: when a flow's jobs fire, read-only (operators add and change schedules with `seqflow schedule`). */
export function registerScheduleTools(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    'list_schedules',
    {
      title: "List a flow's schedules",
      description:
        "A flow's schedules: each fires a job of the production version at the times its cron expression names (in its time zone), with a fixed input. Shows the next firing, the last one (its flow_run_id, or the error that kept it from starting) and how many fired or were skipped. Read-only: operators manage schedules with `seqflow schedule`. A scheduled run shows its schedule_id in list_runs.",
      inputSchema: { flow_id: flowId },
      outputSchema: {
        schedules: z.array(
          z.object({
            schedule_id: z.string(),
            cron: z.string(),
            timezone: z.string(),
            missed: z.enum(['run', 'skip']).describe('What happens to firings missed while no worker ran: run late, or skip'),
            status: z.enum(['active', 'paused', 'removed']),
            callback_url: z.string().nullable(),
            next_firing_at: z.string().nullable(),
            last_fired_for: z.string().nullable(),
            last_flow_run_id: z.string().nullable(),
            last_error_code: z.string().nullable(),
            fired_count: z.number().int(),
            skipped_count: z.number().int(),
          }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => answer(ctx, () => ctx.services.authoring.listSchedules(ctx.scope, { flowId: args.flow_id })),
  );
}

/** `run_flow`: a trial run, waited for at most `wait_seconds`; a run still going is left running and answered as such. */
async function runFlow(
  ctx: ToolContext,
  args: { flow_id: string; input: { message: string; parameters?: Record<string, unknown> | undefined; attachments?: z.infer<typeof attachmentSchema>[] | undefined }; target?: 'production' | 'draft' | number | undefined; production?: boolean | undefined; wait_seconds?: number | undefined; tool_results?: Record<string, string> | undefined },
) {
  const flow = await ctx.services.authoring.requireFlow(ctx.scope, args.flow_id);
  // Never silently: a tools flow run without tool_results offers its model no tools.
  const toolBlocks = args.tool_results ? [] : flow.draft.flatMap((step) => blocksOfStep(step)).filter((block) => block.processor_config?.tools_enabled).map((block) => block.name);
  const warnings = toolBlocks.length > 0 ? [`blocks ${toolBlocks.map((name) => `'${name}'`).join(', ')} call tools, but no tool_results were given: the model was offered no tools`] : [];
  await ctx.runLimiter(ctx.metadata.principal.id);
  const { started, running, outcome } = await startThenWaitAtMost<string, ExecutionOutcome>(
    (onStarted) =>
      ctx.services.testing.runTrial(
        ctx.scope,
        { flowId: args.flow_id, message: args.input.message, parameters: args.input.parameters ?? {}, attachments: args.input.attachments ?? [], target: args.target, production: args.production ?? false, ...(args.tool_results ? { toolResults: args.tool_results } : {}), onStarted },
        ctx.metadata,
      ),
    args.wait_seconds ?? DEFAULT_WAIT_SECONDS,
  );
  const executionId = started!;
  const warned = warnings.length > 0 ? { warnings } : {};
  if (outcome.done) return { ...answerOf(outcome.value, executionId), ...warned };
  keepRunning(ctx, running, [executionId]);
  return { flow_run_id: executionId, status: 'running' as const, ...warned };
}

function answerOf(outcome: ExecutionOutcome, executionId: string) {
  if (outcome.status === 'completed') return { flow_run_id: executionId, status: 'completed' as const, result: truncateStrings(outcome.result, RESULT_STRINGS) };
  if (outcome.status === 'failed') return { flow_run_id: executionId, status: 'failed' as const, error: { code: outcome.code, message: failureText(outcome), block_name: outcome.blockName } };
  if (outcome.status === 'waiting') return { flow_run_id: executionId, status: 'waiting' as const, waiting_for: { step_id: outcome.waitingFor.stepId, due_at: outcome.waitingFor.dueAt } };
  return { flow_run_id: executionId, status: 'paused' as const };
}
