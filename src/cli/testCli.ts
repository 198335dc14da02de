import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ApiError } from '../domain/errors/apiError.ts';
import { cliPrincipal, withRuntime, withoutPosition } from './cliSupport.ts';

async function readCaseFile(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new ApiError('TEST_CASE_INVALID', `${path}: ${(error as Error).message}`);
  }
}

/** `seqflow test add|update|list|remove`: a flow's test cases. */
export function registerTestCommands(program: Command) {
  const test = program.command('test').description("a flow's test cases");
  test
    .command('add')
    .requiredOption('--flow <id>')
    .requiredOption('--file <path>', 'the test case (JSON): {name, input: {message, parameters?, attachments?}, tool_results?, assertions: [...]}')
    .action((o: { flow: string; file: string }) =>
      withRuntime(async (rt) => {
        const definition = await readCaseFile(o.file);
        const { addTestCase } = await import('../testing/testCases.ts');
        return withoutPosition(await addTestCase(rt.commands, {}, { flowId: o.flow, definition }, cliPrincipal));
      }),
    );
  test
    .command('update')
    .requiredOption('--case <id>')
    .requiredOption('--file <path>')
    .action((o: { case: string; file: string }) =>
      withRuntime(async (rt) => {
        const definition = await readCaseFile(o.file);
        const { updateTestCase } = await import('../testing/testCases.ts');
        return withoutPosition(await updateTestCase(rt.commands, {}, { testCaseId: o.case, definition }, cliPrincipal));
      }),
    );
  test
    .command('list')
    .requiredOption('--flow <id>')
    .action((o: { flow: string }) => withRuntime(async (rt) => (await import('../testing/testCases.ts')).listTestCases(rt.db, {}, o.flow)));
  test
    .command('remove')
    .requiredOption('--case <id>')
    .action((o: { case: string }) => withRuntime(async (rt) => withoutPosition(await (await import('../testing/testCases.ts')).removeTestCase(rt.commands, {}, { testCaseId: o.case }, cliPrincipal))));
}
