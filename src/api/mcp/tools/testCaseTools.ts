import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { assertionSchema, testCaseSchema } from '../../../domain/testing/testCaseDefinition.ts';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { type ToolContext, answer, settled } from '../toolContext.ts';

const caseFields = {
  name: z.string().min(1).max(200),
  input: testCaseSchema.shape.input.describe('What the run receives: {message, parameters?, attachments?}'),
  assertions: z.array(assertionSchema).min(1).max(100).describe('What the run must do; each one of the typed assertions'),
  tool_results: z.record(z.string(), z.string()).optional().describe('For flows with tools: tool name -> the content a caller would return'),
};
/** Cases one create_test_case adds at most: a suite's worth, in one call. */
const MAX_CASES = 20;
const write = { readOnlyHint: false, openWorldHint: false };

/** Test cases: each change one event on the case's stream, answered once the read models show it. */
export function registerTestCaseTools(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    'create_test_case',
    {
      title: 'Create test cases',
      description:
        `Adds a test case to a flow: an input ({message, parameters?, attachments?}), typed assertions on the run (the input schema lists each type and its fields) and, for flows with tools, scripted tool_results (tool name -> content). To add several at once, give cases (up to ${MAX_CASES}) instead of name, input and assertions: every case is checked before any is added.`,
      inputSchema: { flow_id: z.string().min(1), ...z.object(caseFields).partial().shape, cases: z.array(z.object(caseFields)).min(1).max(MAX_CASES).optional().describe('Several cases at once, each {name, input, assertions, tool_results?}') },
      outputSchema: { test_case_id: z.string().optional().describe('The case added (one case)'), flow_id: z.string(), name: z.string().optional(), test_cases: z.array(z.object({ test_case_id: z.string(), name: z.string() })).describe('Every case added, in order') },
      annotations: { ...write, destructiveHint: false, idempotentHint: false },
    },
    ({ flow_id, cases, ...one }) =>
      answer(ctx, async () => {
        const given = Object.values(one).some((value) => value !== undefined);
        if (cases && given) throw new ApiError('VALIDATION_FAILED', 'Give cases, or one case (name, input, assertions), not both');
        const definitionOf = (c: { name?: string | undefined; input?: unknown; assertions?: unknown; tool_results?: Record<string, string> | undefined }) => ({ name: c.name, input: c.input, assertions: c.assertions, ...(c.tool_results ? { tool_results: c.tool_results } : {}) });
        const added = cases
          ? await ctx.services.testing.addTestCases(ctx.scope, { flowId: flow_id, definitions: cases.map(definitionOf) }, ctx.metadata)
          : [await ctx.services.testing.addTestCase(ctx.scope, { flowId: flow_id, definition: definitionOf(one) }, ctx.metadata)];
        await settled(ctx, Math.max(...added.map((a) => a.position)));
        const test_cases = added.map((a) => ({ test_case_id: a.testCaseId, name: a.name }));
        return cases ? { flow_id, test_cases } : { ...test_cases[0]!, flow_id, test_cases };
      }),
  );

  server.registerTool(
    'update_test_case',
    {
      title: 'Update a test case',
      description: "Changes a test case's name, input, assertions or tool_results; fields left out stay as they are. The whole case is checked again as create_test_case checks it.",
      inputSchema: { test_case_id: z.string().min(1), ...z.object(caseFields).partial().shape },
      outputSchema: { test_case_id: z.string(), name: z.string() },
      annotations: { ...write, destructiveHint: false, idempotentHint: true },
    },
    ({ test_case_id, ...changes }) =>
      answer(ctx, async () => {
        const current = await ctx.services.testing.requireTestCase(ctx.scope, test_case_id);
        const definition = { ...current.definition, ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) };
        const updated = await ctx.services.testing.updateTestCase(ctx.scope, { testCaseId: test_case_id, definition }, ctx.metadata);
        await settled(ctx, updated.position);
        return { test_case_id, name: updated.name };
      }),
  );

  server.registerTool(
    'delete_test_case',
    {
      title: 'Delete a test case',
      description: 'Removes a test case from its flow: run_all_tests and the promotion gate no longer count it. Its past runs stay readable.',
      inputSchema: { test_case_id: z.string().min(1) },
      outputSchema: { test_case_id: z.string(), deleted: z.boolean() },
      annotations: { ...write, destructiveHint: true, idempotentHint: false },
    },
    ({ test_case_id }) =>
      answer(ctx, async () => {
        const removed = await ctx.services.testing.removeTestCase(ctx.scope, { testCaseId: test_case_id }, ctx.metadata);
        await settled(ctx, removed.position);
        return { test_case_id, deleted: true };
      }),
  );
}
