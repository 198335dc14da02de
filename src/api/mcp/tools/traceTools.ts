import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { runStatuses } from '../../../domain/execution/runStatus.ts';
import { type ToolContext, answer } from '../toolContext.ts';

/** Assistants' contexts are small: strings in traces are cut at this length, with a marker saying the full one. */
const TRACE_STRING_LIMIT = 500;
const DEFAULT_PAGE = 20;

const page = {
  cursor: z.string().regex(/^\d+$/).optional().describe('next_cursor of the previous page'),
  limit: z.number().int().min(1).max(100).optional().describe(`Entries per page (default ${DEFAULT_PAGE})`),
};

/** A page of `items` from the cursor on, and the cursor of the next page (null on the last). */
function pageOf<T>(items: T[], cursor: string | undefined, limit = DEFAULT_PAGE) {
  const from = cursor === undefined ? 0 : Number(cursor);
  const to = from + limit;
  return { items: items.slice(from, to), next_cursor: to < items.length ? String(to) : null, total: items.length };
}

/** camelCase keys of one level to the snake_case names the tools' arguments use (ids: `stepId` -> `step_id`). */
const snakeKeys = (record: Record<string, unknown>) => Object.fromEntries(Object.entries(record).map(([key, value]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]));
const snakeRecord = (value: unknown) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? snakeKeys(value as Record<string, unknown>) : value);

/** A flow step's child run as the tools name it: its id is what get_test_run_trace takes. */
const childRunOf = (subflow: unknown) => {
  const child = subflow as { executionId: string; flowId: string; versionNumber: number };
  return { flow_run_id: child.executionId, flow_id: child.flowId, version_number: child.versionNumber };
};

/** Traces of any run, read from the log: what an assistant reads to see why a test failed. */
export function registerTraceTools(server: McpServer, ctx: ToolContext) {
  const options = { maxStringLength: TRACE_STRING_LIMIT };

  server.registerTool(
    'get_test_run_trace',
    {
      title: 'Read a run',
      description: "A run's header (flow, version, status, what it was given, duration, tokens, cost in US dollars, result or failure, assertion results for a test run) and its steps, paginated. Long strings are cut with a marker. Its input is what create_test_case takes as input, so a run can become a test case.",
      inputSchema: { flow_run_id: z.string().min(1), ...page },
      outputSchema: {
        flow_run_id: z.string(),
        flow_id: z.string(),
        mode: z.string(),
        version: z.object({ version_id: z.string(), number: z.number().int() }),
        status: z.enum(runStatuses),
        input: z.object({ message: z.string().nullable(), parameters: z.record(z.string(), z.unknown()), attachments: z.array(z.unknown()) }).describe('What the run was given (long strings cut)'),
        duration_ms: z.number().nullable(),
        tokens: z.number(),
        cost_usd: z.number().nullable().describe("What the run's model calls cost in US dollars at the catalog's prices when they ran (null: no price known)"),
        result: z.unknown(),
        failure: z.record(z.string(), z.unknown()).nullable(),
        assertions: z.unknown(),
        steps: z.array(z.record(z.string(), z.unknown())),
        tool_rounds: z.array(z.record(z.string(), z.unknown())),
        total_steps: z.number().int(),
        next_cursor: z.string().nullable(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(ctx, () => runTraceAnswer(ctx, args)),
  );

  server.registerTool(
    'get_step_trace',
    {
      title: 'Read one step of a run',
      description: 'Every execution of one block in a run (one per loop item): the rendered prompt, input, output, model, token usage, latency, attempts, why a reply was refused, tool rounds, error. Paginated.',
      inputSchema: { flow_run_id: z.string().min(1), step_id: z.string().min(1), ...page },
      outputSchema: {
        flow_run_id: z.string(),
        step_id: z.string(),
        name: z.string(),
        processor_type: z.string(),
        executions: z.array(z.record(z.string(), z.unknown())),
        total_executions: z.number().int(),
        next_cursor: z.string().nullable(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(
        ctx,
        async () => {
          const trace = await ctx.services.testing.stepTrace(ctx.scope, args.flow_run_id, args.step_id, options);
          const executions = pageOf(trace.executions, args.cursor, args.limit);
          return {
            flow_run_id: trace.executionId,
            step_id: trace.stepId,
            name: trace.name,
            processor_type: trace.processorType,
            executions: executions.items.map((e) => ({ ...snakeKeys(e), usage: snakeRecord(e.usage) })),
            total_executions: executions.total,
            next_cursor: executions.next_cursor,
          };
        },
        async (code) => (code === 'BLOCK_NOT_FOUND' ? runStepsHint(ctx, args.flow_run_id) : undefined),
      ),
  );
}

/** The step ids that did run in a run: what get_step_trace accepts. */
async function runStepsHint(ctx: ToolContext, flowRunId: string) {
  const trace = await ctx.services.testing.runTrace(ctx.scope, flowRunId, { maxStringLength: 50 });
  const ran = new Map(trace.steps.map((s) => [String(s.stepId), String(s.name)]));
  return ran.size === 0 ? 'No block ran in this run.' : `Blocks that ran in this run: ${[...ran].map(([id, name]) => `${id} (${name})`).join(', ')}.`;
}

/** `get_test_run_trace`'s answer: the run's header and a page of its steps, in the tools' snake_case. */
async function runTraceAnswer(ctx: ToolContext, args: { flow_run_id: string; cursor?: string | undefined; limit?: number | undefined }) {
  const trace = await ctx.services.testing.runTrace(ctx.scope, args.flow_run_id, { maxStringLength: TRACE_STRING_LIMIT });
  const steps = pageOf(trace.steps, args.cursor, args.limit);
  return {
    flow_run_id: trace.executionId,
    flow_id: trace.flowId,
    mode: trace.mode,
    version: { version_id: trace.version.versionId, number: trace.version.number },
    /** A child run's parent (the run whose flow block started it), or null. */
    parent: trace.parent ? { flow_run_id: trace.parent.executionId, step_index: trace.parent.stepIndex, block_name: trace.parent.blockName, iteration: trace.parent.iteration, depth: trace.parent.depth } : null,
    status: trace.status,
    input: trace.input as { message: string | null; parameters: Record<string, unknown>; attachments: unknown[] },
    duration_ms: trace.durationMs,
    tokens: trace.tokens,
    cost_usd: trace.costUsd,
    result: trace.result,
    failure: trace.failure,
    assertions: trace.assertions,
    steps: steps.items.map((s) => ({ ...snakeKeys(s), ...('usage' in s ? { usage: snakeRecord(s.usage) } : {}), ...(s.subflow ? { subflow: childRunOf(s.subflow) } : {}) })),
    tool_rounds: trace.toolRounds.map(snakeKeys),
    total_steps: steps.total,
    next_cursor: steps.next_cursor,
  };
}
