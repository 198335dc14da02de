import { writeFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError } from 'commander';
import { type BacktestJudge, type BacktestSelection, backtestJudgeSchema } from '../domain/backtests/backtestEvents.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { describeIssues } from '../domain/validation/issuePath.ts';
import { parseJsonInput, readTextFile } from './cliFiles.ts';
import { cliPrincipal, positiveInt, withRuntime } from './cliSupport.ts';
import { FLOW_HELP, type FlowRef, ORG_HELP, PROJECT_HELP, flowIdOf } from './cliRefs.ts';

interface BacktestOptions extends Partial<FlowRef> {
  draft?: boolean;
  version?: number;
  last?: number;
  since?: string;
  until?: string;
  execution?: string[];
  onlyCompleted?: boolean;
  judge?: string;
  failOnChange?: boolean;
  junit?: string;
  repeat?: string;
  concurrency?: number;
}

const instant = (value: string) => {
  if (Number.isNaN(Date.parse(value))) throw new InvalidArgumentError('must be an ISO 8601 time, e.g. 2026-11-20T00:00:00Z');
  return new Date(value).toISOString();
};

/** The selection the options name: exactly one of --last, --since [--until] and --execution, unless --repeat brings one. */
function selectionOf(o: BacktestOptions, now: Date): BacktestSelection | undefined {
  const given = [o.last !== undefined, o.since !== undefined, o.execution !== undefined].filter(Boolean).length;
  if (o.until !== undefined && o.since === undefined) throw new ApiError('VALIDATION_FAILED', '--until needs --since');
  if (given > 1) throw new ApiError('VALIDATION_FAILED', 'choose the runs one way: --last N, --since T [--until T], or --execution ID...');
  if (given === 0) {
    if (o.repeat) return undefined;
    throw new ApiError('VALIDATION_FAILED', 'choose the runs: --last N, --since T [--until T], or --execution ID... (or --repeat BACKTEST_ID)');
  }
  if (o.last !== undefined) return { kind: 'last', count: o.last };
  if (o.since !== undefined) return { kind: 'window', since: o.since, until: o.until ?? now.toISOString() };
  return { kind: 'executions', executionIds: o.execution! };
}

/** A judge file: JSON `{rubric, model?, threshold?}`, or plain text, the rubric itself. */
async function readJudge(path: string): Promise<BacktestJudge> {
  const source = { label: `--judge ${path}`, code: 'VALIDATION_FAILED' } as const;
  const text = await readTextFile(path, source);
  const value: unknown = text.trimStart().startsWith('{') ? parseJsonInput(text, source) : { rubric: text.trim() };
  const parsed = backtestJudgeSchema.safeParse(value);
  if (!parsed.success) throw new ApiError('VALIDATION_FAILED', `--judge ${path}:\n${describeIssues(parsed.error.issues).join('\n')}`);
  return parsed.data;
}

/** `seqflow backtest`: a candidate (the draft or a version) replayed on recorded production runs, pair by pair. */
export function registerBacktestCommand(program: Command) {
  program
    .command('backtest')
    .description('replay recorded production runs of a flow on the draft or a version and compare each answer; exit 1 with --fail-on-change when an answer changed or a replay failed')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .option('--flow <slug|id>', FLOW_HELP)
    .option('--draft', "the flow's current draft (snapshotted once for every replay)")
    .option('--version <n>', 'a published version number', positiveInt)
    .option('--last <n>', 'the flow\'s last N ended production runs (at most 1000)', positiveInt)
    .option('--since <time>', 'production runs from this time (ISO 8601)', instant)
    .option('--until <time>', 'with --since: up to this time (default: now)', instant)
    .option('--execution <id...>', 'these runs, by execution id')
    .option('--only-completed', 'leave out runs that failed')
    .option('--judge <file>', 'an llm judge of each changed answer: a rubric (text, or JSON {rubric, model?, threshold?})')
    .option('--fail-on-change', 'exit 1 when an answer changed or a replay failed')
    .option('--junit <path>', 'also write a JUnit XML report there')
    .option('--repeat <backtestId>', 'replay the runs that backtest chose (its target, selection and judge unless given)')
    .option('--concurrency <n>', 'replays at once (default 8, at most 32)', positiveInt)
    .action((o: BacktestOptions) =>
      withRuntime(async (rt) => {
        if (!o.flow && !o.repeat) throw new ApiError('VALIDATION_FAILED', 'give --flow (or --repeat BACKTEST_ID)');
        if (o.version !== undefined && o.draft) throw new ApiError('VALIDATION_FAILED', 'give --version N or --draft, not both');
        if (o.version === undefined && !o.draft && !o.repeat) throw new ApiError('VALIDATION_FAILED', 'give the candidate: --draft or --version N');
        if (o.last === 0) throw new ApiError('VALIDATION_FAILED', '--last must be at least 1');
        const selection = selectionOf(o, rt.commands.now());
        const judge = o.judge ? await readJudge(o.judge) : undefined;
        const [{ startBacktest }, { loadBacktest }, { backtestJunit }] = await Promise.all([import('../backtests/backtestRunner.ts'), import('../backtests/backtestStreams.ts'), import('../backtests/backtestJunit.ts')]);
        const flowId = o.flow ? await flowIdOf(rt, { ...o, flow: o.flow }) : (await loadBacktest(rt.commands, {}, o.repeat!)).started.flowId;
        const started = await startBacktest(rt.execution, {}, { flowId, version: o.version, draft: o.draft, selection, onlyCompleted: o.onlyCompleted, judge, repeatOf: o.repeat, concurrency: o.concurrency }, cliPrincipal);
        process.stderr.write(`backtest ${started.backtestId}: replaying ${started.total} runs of ${started.flowSlug} on ${started.target.kind === 'draft' ? 'the draft' : `version ${started.target.number}`}\n`);
        const report = await started.run();
        if (o.junit) await writeFile(o.junit, backtestJunit(report, started.flowSlug));
        if (o.failOnChange && (report.summary.different > 0 || report.summary.failed > 0)) process.exitCode = 1;
        const { position: _position, ...shown } = report;
        return shown;
      }),
    );
}
