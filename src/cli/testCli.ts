import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ApiError } from '../domain/errors/apiError.ts';
import { readJsonFile } from './cliFiles.ts';
import { cliPrincipal, positiveInt, withRuntime, withoutPosition } from './cliSupport.ts';
import { CASE_HELP, FLOW_HELP, type FlowRef, ORG_HELP, PROJECT_HELP, flowIdOf, testCaseIdOf } from './cliRefs.ts';

const readCaseFile = (path: string) => readJsonFile(path, { label: `--file ${path}`, code: 'TEST_CASE_INVALID' });

/** `seqflow test add|update|list|run|from-run|remove`: a flow's test cases. */
export function registerTestCommands(program: Command) {
  const test = program.command('test').description("a flow's test cases");
  test
    .command('add')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .requiredOption('--file <path>', 'the test case (JSON): {name, input: {message, parameters?, attachments?}, tool_results?, assertions: [...]}')
    .action((o: FlowRef & { file: string }) =>
      withRuntime(async (rt) => {
        const definition = await readCaseFile(o.file);
        const { addTestCase } = await import('../testing/testCases.ts');
        return withoutPosition(await addTestCase(rt.commands, {}, { flowId: await flowIdOf(rt, o), definition }, cliPrincipal));
      }),
    );
  test
    .command('update')
    .requiredOption('--case <name|id>', CASE_HELP)
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .option('--flow <slug|id>', FLOW_HELP)
    .requiredOption('--file <path>')
    .action((o: CaseRef & { file: string }) =>
      withRuntime(async (rt) => {
        const definition = await readCaseFile(o.file);
        const { updateTestCase } = await import('../testing/testCases.ts');
        return withoutPosition(await updateTestCase(rt.commands, {}, { testCaseId: await testCaseIdOf(rt, o), definition }, cliPrincipal));
      }),
    );
  test
    .command('list')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .action((o: FlowRef) => withRuntime(async (rt) => (await import('../testing/testCases.ts')).listTestCases(rt.db, {}, await flowIdOf(rt, o))));
  test
    .command('run')
    .description('run one test case (--case) or all of a flow (--flow) against a version (default: production, else the latest) or the draft; exit code 0 only when all passed')
    .option('--case <name|id>', `${CASE_HELP}; without it, every case of --flow runs`)
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .option('--flow <slug|id>', FLOW_HELP)
    .option('--version <n>', 'a published version number', positiveInt)
    .option('--draft', "the flow's current draft (snapshotted for the run)")
    .option('--junit <path>', 'with --flow: also write a JUnit XML report there')
    .action((o: { case?: string; org?: string; project?: string; flow?: string; version?: number; draft?: boolean; junit?: string }) =>
      withRuntime(async (rt) => {
        if (!o.case && !o.flow) throw new ApiError('VALIDATION_FAILED', 'give --case (one test case) or --flow (all of its cases)');
        if (o.version !== undefined && o.draft) throw new ApiError('VALIDATION_FAILED', 'give --version N or --draft, not both');
        if (o.case) {
          if (o.junit) throw new ApiError('VALIDATION_FAILED', '--junit reports a whole flow: give --flow without --case');
          const { runTestCase } = await import('../testing/testRunner.ts');
          const summary = await runTestCase(rt.execution, {}, { testCaseId: await testCaseIdOf(rt, { ...o, case: o.case }), version: o.version, draft: o.draft }, cliPrincipal);
          if (!summary.passed) process.exitCode = 1;
          return summary;
        }
        const [{ runSuite }, { junitReport }] = await Promise.all([import('../testing/testSuite.ts'), import('../testing/junitReport.ts')]);
        const suite = await runSuite(rt.execution, {}, { flowId: await flowIdOf(rt, { ...o, flow: o.flow! }), version: o.version, draft: o.draft }, cliPrincipal);
        if (o.junit) await writeFile(o.junit, junitReport({ flowSlug: suite.flowSlug, target: suite.target.kind === 'draft' ? 'draft' : `version ${suite.target.number}`, runs: suite.runs }));
        if (suite.totals.failed > 0) process.exitCode = 1;
        return suite;
      }),
    );
  test
    .command('from-run')
    .description("a recorded run as a test case of its flow: its input, its tool results, and an equals assertion on its result (edit it with test update)")
    .requiredOption('--execution <id>', 'the run, by execution id')
    .option('--name <name>', 'the test case\'s name (default: "from run <id>")')
    .action((o: { execution: string; name?: string }) =>
      withRuntime(async (rt) => withoutPosition(await (await import('../backtests/testCaseFromRun.ts')).testCaseFromRun(rt.commands, {}, { executionId: o.execution, name: o.name }, cliPrincipal))),
    );
  test
    .command('remove')
    .requiredOption('--case <name|id>', CASE_HELP)
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .option('--flow <slug|id>', FLOW_HELP)
    .action((o: CaseRef) => withRuntime(async (rt) => withoutPosition(await (await import('../testing/testCases.ts')).removeTestCase(rt.commands, {}, { testCaseId: await testCaseIdOf(rt, o) }, cliPrincipal))));
}

/** A test case by name or id, with the flow that narrows its name. */
type CaseRef = Partial<FlowRef> & { case: string };
