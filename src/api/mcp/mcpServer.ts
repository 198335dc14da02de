import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from './toolContext.ts';
import { registerBlockEditingTools } from './tools/blockEditingTools.ts';
import { registerBlockReadingTools } from './tools/blockReadingTools.ts';
import { registerFlowBuildingTools } from './tools/flowBuildingTools.ts';
import { registerVersionTools } from './tools/versionTools.ts';
import { registerGateTools } from './tools/gateTools.ts';
import { registerProjectTools } from './tools/projectTools.ts';
import { registerTestCaseTools } from './tools/testCaseTools.ts';
import { registerTestingTools } from './tools/testingTools.ts';
import { registerBacktestTools } from './tools/backtestTools.ts';
import { registerTraceTools } from './tools/traceTools.ts';
import { registerRunTools, registerScheduleTools } from './tools/runTools.ts';
import { registerApprovalTools } from './tools/approvalTools.ts';
import { registerModelTools } from './tools/modelTools.ts';
import { registerTriageFailuresPrompt } from './prompts/triageFailuresPrompt.ts';
import { registerPromoteSafelyPrompt } from './prompts/promoteSafelyPrompt.ts';

/** What the server tells every assistant when it connects: the conventions of the spec. */
export const MCP_INSTRUCTIONS = [
  'Seqflow runs flows: trees of blocks (llm, passthrough, code) that callers execute through one URL.',
  'Begin with list_projects() to find your project_id, then hydrate_project(project_id): it maps the flows, their blocks (step_id), versions and test cases, and the models.',
  'Edits change the draft only. For a change to go live: publish_version, then set_production_version with the returned version_id.',
  'Flows that receive images need a vision-capable model on their llm blocks (hydrate_project lists models with vision: true); set it with update_block.',
  'Test before promoting: create_test_case, then run_all_tests with version set to the new version number; read failures with get_test_run_trace and get_step_trace.',
  'See what a version would change on real traffic: backtest_version replays recorded production runs on it and compares each answer; get_backtest reads every pair; create_test_case_from_run keeps a run as a test case. A flow with no production traffic yet: run_flow with production: true records runs to replay.',
  'Ids pass on unchanged: results name them the way arguments do (flow_id, step_id, version_id, test_case_id, flow_run_id).',
].join('\n');

/** What a read-only session is told instead of the conventions for writing. */
export const MCP_READ_ONLY_INSTRUCTIONS = [
  'Seqflow runs flows: trees of blocks (llm, passthrough, code) that callers execute through one URL.',
  'This connection is read only: it reads projects, flows, versions, test cases, runs, traces and backtests, and changes and runs nothing.',
  'Begin with list_projects() to find your project_id, then hydrate_project(project_id).',
].join('\n');

/**
 * A fresh server for one request (stateless transport): tools bound to this caller. Read only: the
 * tools annotated readOnlyHint alone (each tool's annotation is the one list), and no prompts (both
 * end in writes).
 */
export function createMcpServer(ctx: ToolContext, version: string, options: { readOnly: boolean }): McpServer {
  const capabilities = options.readOnly ? { tools: {} } : { tools: {}, prompts: {} };
  const mcp = new McpServer({ name: 'seqflow', title: 'Seqflow', version }, { instructions: options.readOnly ? MCP_READ_ONLY_INSTRUCTIONS : MCP_INSTRUCTIONS, capabilities });
  const routed = readingAfterChanges(mcp, ctx);
  const server = options.readOnly ? readingToolsOf(routed) : routed;
  registerProjectTools(server, ctx);
  registerFlowBuildingTools(server, ctx);
  registerBlockReadingTools(server, ctx);
  registerBlockEditingTools(server, ctx);
  registerVersionTools(server, ctx);
  registerGateTools(server, ctx);
  registerTestCaseTools(server, ctx);
  registerTestingTools(server, ctx);
  registerBacktestTools(server, ctx);
  registerRunTools(server, ctx);
  registerScheduleTools(server, ctx);
  registerApprovalTools(server, ctx);
  registerTraceTools(server, ctx);
  registerModelTools(server, ctx);
  if (!options.readOnly) {
    registerTriageFailuresPrompt(mcp, ctx);
    registerPromoteSafelyPrompt(mcp, ctx);
  }
  return mcp;
}

/**
 * `server` as the tool modules see it, each tool's work wrapped: a tool annotated readOnlyHint reads
 * where read replicas may serve it, after the caller's own changes; any other tool that succeeds is
 * such a change (src/api/readsAfterChanges.ts).
 */
function readingAfterChanges(server: McpServer, ctx: ToolContext): McpServer {
  const register = server.registerTool.bind(server) as (name: string, config: { annotations?: ToolAnnotations }, callback: unknown) => RegisteredTool;
  const registerTool = ((name: string, config: { annotations?: ToolAnnotations }, callback: (...args: unknown[]) => Promise<CallToolResult>) =>
    register(name, config, async (...args: unknown[]) => {
      const caller = ctx.metadata.principal;
      if (config.annotations?.readOnlyHint === true) return ctx.services.reads.read(caller, () => callback(...args));
      const result = await callback(...args);
      if (result.isError !== true) ctx.services.reads.changed(caller);
      return result;
    })) as McpServer['registerTool'];
  return Object.assign(Object.create(server) as McpServer, { registerTool });
}

/** `server` as the tool modules see it, keeping only the tools that change nothing (removed before any client connects, so nothing is announced). */
function readingToolsOf(server: McpServer): McpServer {
  const register = server.registerTool.bind(server) as (name: string, config: { annotations?: ToolAnnotations }, callback: unknown) => RegisteredTool;
  const registerTool = ((name: string, config: { annotations?: ToolAnnotations }, callback: unknown) => {
    const tool = register(name, config, callback);
    if (config.annotations?.readOnlyHint !== true) tool.remove();
    return tool;
  }) as McpServer['registerTool'];
  return Object.assign(Object.create(server) as McpServer, { registerTool });
}
