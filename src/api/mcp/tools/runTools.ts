import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { runStatuses } from '../../../domain/execution/runStatus.ts';
import { type ToolContext, answer } from '../toolContext.ts';
import { flowId } from './authoringShapes.ts';

const modes = ['sync', 'async', 'step', 'test'] as const;

/** A flow's runs, as an assistant looks for what went wrong lately. */
export function registerRunTools(server: McpServer, ctx: ToolContext) {
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
