import type { BacktestService } from '../../backtests/backtestService.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuthoringScope } from '../../authoring/authoringScope.ts';
import type { CommandMetadata } from '../../commands/commandHandler.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import type { Logger } from 'pino';
import type { AuthoringService } from '../../authoring/authoringService.ts';
import type { ProviderName } from '../../domain/models/modelRoute.ts';
import type { ModelRegistry } from '../../execution/modelRegistry.ts';
import type { TestingService } from '../../testing/testingService.ts';
import type { RunLifecycle } from '../../runs/runLifecycle.ts';
import type { RunRateLimiter } from './runRateLimiter.ts';
import type { ReadsAfterChanges } from '../readsAfterChanges.ts';
import { toolFailure, toolSuccess } from './toolResult.ts';

/** The services the tools work with, made once by the MCP wiring. */
export interface McpServices {
  authoring: AuthoringService;
  testing: TestingService;
  backtests: BacktestService;
  /** This process's live runs: a test run the caller stopped waiting for goes on, tracked for shutdown. */
  lifecycle: Pick<RunLifecycle, 'follow'>;
  /** The model catalog, the default model, and the providers the service has an account with. */
  models: { registry: ModelRegistry; defaultModel: string; configured: ProviderName[] };
  /** Reading tools read after the caller's own changes, where read replicas may serve them (src/api/readsAfterChanges.ts). */
  reads: ReadsAfterChanges;
  /** Resolves once the read models show `position`, or fails after `timeoutMs`. */
  waitForPosition: (position: number, timeoutMs: number) => Promise<unknown>;
  logger: Logger;
}

/** What every tool of one MCP request works with: the caller (a member of `scope`'s organizations) and the services. */
export interface ToolContext {
  services: McpServices;
  /** The caller's organizations: anything outside them is answered as not found. */
  scope: AuthoringScope;
  /** The principal every event the tools append carries: the subject, its OAuth client, `via: 'mcp'`. */
  metadata: CommandMetadata;
  runLimiter: RunRateLimiter;
}

/**
 * Tools read their own writes: a change is answered once the read models show it, waiting at most
 * 10 s. A write is done once it is in the log, so read models slower than that still answer success
 * (an error would have the assistant retry, and write it twice).
 */
export async function settled(ctx: ToolContext, position: number): Promise<void> {
  try {
    await ctx.services.waitForPosition(position, 10_000);
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 'PROJECTION_TIMEOUT')) throw error;
    ctx.services.logger.warn({ position }, 'an assistant\'s write is in the log, but the read models have not shown it within 10 s');
  }
}

/**
 * Runs a tool's work and shapes its answer; a failure becomes a tool error, with the hint that
 * `hintFor` finds for it (it may read the flow again, e.g. to list the valid step ids).
 */
export async function answer<T extends Record<string, unknown>>(
  ctx: ToolContext,
  work: () => Promise<T>,
  hintFor?: (code: string) => Promise<string | undefined> | string | undefined,
): Promise<CallToolResult> {
  try {
    return toolSuccess(await work());
  } catch (error) {
    if (!(error instanceof ApiError)) return toolFailure(error, ctx.services.logger);
    // A hint is help, not part of the answer: if finding it fails, the error goes out without it.
    const hint = (await Promise.resolve(hintFor?.(error.code)).catch(() => undefined)) ?? defaultHints.get(error.code);
    return toolFailure(error, ctx.services.logger, hint);
  }
}

/** What a model can do next after each error an assistant commonly meets. */
const defaultHints = new Map<string, string>([
  ['PROJECT_NOT_FOUND', 'Call list_projects to see the project_ids (and organization/project slugs) you can use.'],
  ['FLOW_NOT_FOUND', 'Call hydrate_project to see the flow_ids of the project.'],
  ['VERSION_NOT_FOUND', 'hydrate_project lists each flow\'s versions with their version_id and number; publish_version creates one.'],
  ['TEST_CASE_NOT_FOUND', 'hydrate_project lists each flow\'s test cases with their test_case_id; create_test_case adds one.'],
  ['EXECUTION_NOT_FOUND', 'Pass a flow_run_id returned by run_test_case or run_all_tests.'],
  ['FLOW_INVALID', 'Fix each listed problem with update_block, update_block_draft or update_block_output_schema, then call publish_version again.'],
  ['TESTS_NOT_RUN', 'Run run_all_tests with the version number you want to promote, then call set_production_version again.'],
  ['TESTS_FAILING', 'Read the failing runs with get_test_run_trace, fix the draft, publish a new version and test it before promoting.'],
  ['BACKTEST_NOT_FOUND', 'backtest_version answers a backtest_id; use that one.'],
  ['BACKTEST_NOT_RUN', 'Run backtest_version on the version you want to promote, then call set_production_version again.'],
  ['BACKTEST_CHANGED', 'Read the differences with get_backtest, fix the draft, publish a new version and backtest it before promoting.'],
  ['BACKTEST_NO_RUNS', 'The flow has no ended production runs in that selection: widen it (a larger last, an earlier since), or call the flow in production first.'],
  ['SLUG_TAKEN', 'Choose another slug: it must be unique within the project.'],
  ['SLUG_INVALID', 'A slug is lowercase letters, digits and hyphens, starting with a letter.'],
  ['BLOCK_NAME_TAKEN', 'Block names are unique within a flow: choose another name.'],
  ['TEST_CASE_INVALID', 'Fix each listed problem; assertions need a type such as equals, contains, path_equals, json_schema or llm_judge.'],
  ['CREDITS_EXHAUSTED', 'The organization has no credits left; an operator can add some.'],
]);
