import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolContext } from '../toolContext.ts';

/**
 * "Promote safely": the checks a version passes before it becomes production (the draft's problems,
 * the test cases, a backtest on recorded production runs), stated with the flow's own gate and
 * production version as they are when the prompt is asked for.
 */
export function registerPromoteSafelyPrompt(server: McpServer, ctx: ToolContext) {
  server.registerPrompt(
    'promote_safely',
    {
      title: 'Promote safely',
      description: 'Take a flow\'s draft (or a version) to production only after its tests pass and a backtest shows what it changes: validate_draft → publish_version → run_all_tests → backtest_version → set_production_version.',
      argsSchema: {
        flow_id: z.string().min(1).describe('The flow to promote (hydrate_project lists them)'),
        version: z.string().optional().describe('A version number already published; leave out to publish the draft'),
      },
    },
    async ({ flow_id, version }): Promise<GetPromptResult> => {
      const flow = await ctx.services.authoring.requireFlow(ctx.scope, flow_id);
      const production = flow.versions.find((v) => v.versionId === flow.productionVersionId);
      const gate = [
        flow.promotionGate ? 'every test case must pass on the version' : 'test cases are not required (get_gate/set_gate)',
        flow.backtestGate === null ? 'no backtest rule' : `a finished backtest may change at most ${flow.backtestGate}% of the answers`,
      ];
      const facts = [
        `Flow '${flow.slug}' (${flow_id}): production is ${production ? `version ${production.number}` : 'not set'}; its gate: ${gate.join('; ')}.`,
        version ? `Candidate: version ${version}.` : 'Candidate: the draft.',
      ];
      const steps = [
        ...(version ? [] : ['1. validate_draft(flow_id): fix every problem it names, then publish_version(flow_id) and note the version number.']),
        `${version ? '1' : '2'}. run_all_tests(flow_id, version): every case must pass. A failure: read it with get_test_run_trace, fix the draft, publish again.`,
        `${version ? '2' : '3'}. backtest_version(flow_id, target: the version): read each changed pair with get_backtest(only_changed: true) and say whether the change is intended. No production runs to replay: run_flow(production: true) records some from representative inputs.`,
        `${version ? '3' : '4'}. Only then set_production_version(flow_id, version_id), and report what the promotion changes.`,
        'Never loosen the gate (set_gate) to get a version through.',
      ];
      return { description: `Promotion of ${flow.slug}`, messages: [{ role: 'user', content: { type: 'text', text: `${facts.join('\n')}\n\n${steps.join('\n')}` } }] };
    },
  );
}
