import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolContext } from '../toolContext.ts';

/** Failed runs the prompt summarizes: enough to see which failures repeat. */
const FAILED_RUNS_READ = 50;

/**
 * "Triage failures": the flow's recent failures grouped by code, and the procedure from a failed run
 * to a test case that reproduces it (runs → trace → test case → fix → tests). The figures are read
 * when the prompt is asked for, so the model starts from what is failing now.
 */
export function registerTriageFailuresPrompt(server: McpServer, ctx: ToolContext) {
  server.registerPrompt(
    'triage_failures',
    {
      title: 'Triage failures',
      description: "Find why a flow's runs fail, keep each cause as a test case, and fix the draft: list_runs → get_test_run_trace → create_test_case_from_run → tests.",
      argsSchema: { flow_id: z.string().min(1).describe('The flow to triage (hydrate_project lists them)') },
    },
    async ({ flow_id }): Promise<GetPromptResult> => {
      const flow = await ctx.services.authoring.requireFlow(ctx.scope, flow_id);
      const failed = await ctx.services.authoring.listRuns(ctx.scope, { flowId: flow_id, status: ['failed'], limit: FAILED_RUNS_READ });
      const byCode = new Map<string, string[]>();
      for (const run of failed.runs) byCode.set(run.failure_code ?? 'unknown', [...(byCode.get(run.failure_code ?? 'unknown') ?? []), run.flow_run_id]);
      const summary =
        byCode.size === 0
          ? `Flow '${flow.slug}' (${flow_id}) has no failed runs among its latest: say so, and stop.`
          : `Flow '${flow.slug}' (${flow_id}): ${failed.runs.length} of its latest failed runs, by failure code:\n${[...byCode].map(([code, runs]) => `- ${code}: ${runs.length} (e.g. flow_run_id ${runs[0]})`).join('\n')}`;
      const steps = [
        'For each failure code, one run at a time:',
        '1. get_test_run_trace(flow_run_id): its input, the failing block and its error. For an llm block, get_step_trace(flow_run_id, step_id) shows the prompt and the reply.',
        '2. create_test_case_from_run(flow_run_id) keeps the input as a test case; update_test_case then states what the answer should be (the case a run that failed gets only checks that the flow completes).',
        '3. Fix the draft (update_block, update_block_draft, update_block_output_schema), then run_all_tests(flow_id, draft: true) until every case passes.',
        'Finish with what failed, why, which test cases now cover it, and what changed in the draft. Promote only through the "promote_safely" steps.',
      ];
      return { description: `Triage of ${flow.slug}'s failures`, messages: [{ role: 'user', content: { type: 'text', text: `${summary}\n\n${steps.join('\n')}` } }] };
    },
  );
}
