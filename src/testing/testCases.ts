import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { requireFlow } from '../authoring/flowAuthoring.ts';
import { type AuthoringScope, inScope } from '../authoring/authoringScope.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from '../commands/commandHandler.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { testCase } from '../domain/testing/testCase.ts';
import { type TestCaseDefinition, testCaseSchema } from '../domain/testing/testCaseDefinition.ts';
import { testCaseStream } from '../domain/testing/testCaseEvents.ts';
import { describeIssues } from '../domain/validation/issuePath.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { checkAttachmentsStatically } from '../domain/execution/attachmentRules.ts';

/**
 * Test cases of a flow, as commands on `testcase-<id>` streams (each change an event with its
 * principal). A definition is validated first, every problem named by its path.
 */
export function parseTestCase(input: unknown): TestCaseDefinition {
  const parsed = testCaseSchema.safeParse(input);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues);
    throw new ApiError('TEST_CASE_INVALID', `Invalid test case:\n${problems.join('\n')}`, { problems });
  }
  return parsed.data;
}

/** A test case that exists, is not deleted, and belongs to the scope. */
export async function requireTestCase(deps: CommandDependencies, scope: AuthoringScope, testCaseId: string) {
  const { state } = await loadStream(deps.eventStore, testCaseStream(testCaseId), testCase);
  if (state.status !== 'active' || !inScope(scope, state.organizationId)) throw new ApiError('TEST_CASE_NOT_FOUND', `No test case ${testCaseId}`);
  return state;
}

/**
 * A definition whose shape and attachments are valid: every attachment rule of /execute that needs
 * neither the network nor a flow (count, scheme, URL length, MIME type, filename). The hosts are
 * checked through the outbound guard, and the blocks' models against the images, each time the case
 * runs: a saved case may run long after, against another version.
 */
function validDefinition(input: unknown): TestCaseDefinition {
  const definition = parseTestCase(input);
  checkAttachmentsStatically(definition.input.attachments ?? []);
  return definition;
}

export async function addTestCase(deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; definition: unknown; fromExecutionId?: string }, metadata: CommandMetadata) {
  const definition = validDefinition(input.definition);
  const flow = await requireFlow(deps, scope, input.flowId);
  return createCase(deps, flow, definition, input.fromExecutionId, metadata);
}

/**
 * Several test cases of one flow. Every definition is checked before any is written: a mistake in
 * one (named `cases[i].…`) adds none. Each case is then its own stream and event, as one added alone.
 */
export async function addTestCases(deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; definitions: readonly unknown[] }, metadata: CommandMetadata) {
  const definitions = input.definitions.map((definition, i) => {
    try {
      return validDefinition(definition);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const problems = Array.isArray(error.extra.problems) ? { problems: error.extra.problems.map((problem) => `cases[${i}].${String(problem)}`) } : {};
      throw new ApiError(error.code, `cases[${i}]: ${error.message}`, { ...error.extra, ...problems });
    }
  });
  const flow = await requireFlow(deps, scope, input.flowId);
  const added = [];
  for (const definition of definitions) added.push(await createCase(deps, flow, definition, undefined, metadata));
  return added;
}

async function createCase(deps: CommandDependencies, flow: Awaited<ReturnType<typeof requireFlow>>, definition: TestCaseDefinition, fromExecutionId: string | undefined, metadata: CommandMetadata) {
  const testCaseId = randomUUID();
  const result = await handleCommand(
    deps,
    testCaseStream(testCaseId),
    testCase,
    { type: 'CreateTestCase', data: { testCaseId, flowId: flow.flowId, organizationId: flow.organizationId, projectId: flow.projectId, definition, fromExecutionId: fromExecutionId ?? null } },
    metadata,
  );
  return { testCaseId, flowId: flow.flowId, name: definition.name, position: result.position };
}

export async function updateTestCase(deps: CommandDependencies, scope: AuthoringScope, input: { testCaseId: string; definition: unknown }, metadata: CommandMetadata) {
  const definition = validDefinition(input.definition);
  await requireTestCase(deps, scope, input.testCaseId);
  const result = await handleCommand(deps, testCaseStream(input.testCaseId), testCase, { type: 'UpdateTestCase', data: { definition } }, metadata);
  return { testCaseId: input.testCaseId, name: definition.name, position: result.position };
}

export async function removeTestCase(deps: CommandDependencies, scope: AuthoringScope, input: { testCaseId: string }, metadata: CommandMetadata) {
  await requireTestCase(deps, scope, input.testCaseId);
  const result = await handleCommand(deps, testCaseStream(input.testCaseId), testCase, { type: 'DeleteTestCase' }, metadata);
  return { testCaseId: input.testCaseId, removed: true, position: result.position };
}

/** A flow's test cases (read model), by name. */
export async function listTestCases(db: Kysely<ReadModels>, scope: AuthoringScope, flowId: string) {
  let query = db.selectFrom('test_cases').select(['id', 'name', 'definition', 'from_execution_id', 'updated_at']).where('flow_id', '=', flowId);
  if (scope.organizationIds !== undefined) {
    if (scope.organizationIds.length === 0) return [];
    query = query.where('organization_id', 'in', scope.organizationIds);
  }
  const rows = await query.orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ testCaseId: r.id, name: r.name, definition: r.definition as TestCaseDefinition, fromExecutionId: r.from_execution_id, updatedAt: r.updated_at.toISOString() }));
}
