import { junitXml } from '../testing/junitReport.ts';
import type { BacktestPair } from './backtestReport.ts';
import type { BacktestReport } from './backtestRunner.ts';

/** Why a pair fails in the report: the replay's failure, or each changed path with both values. */
function whyChanged(pair: BacktestPair): string {
  if (pair.outcome === 'failed') {
    const error = pair.candidate.error ? ` (${pair.candidate.error.code}: ${pair.candidate.error.message})` : '';
    return `the replay ${pair.candidate.status}${error} where the recorded run completed`;
  }
  const changes = pair.diff.changes.map((c) => `${c.kind} ${c.path || '(the whole result)'}${c.before !== undefined ? `: ${c.before}` : ''}${c.after !== undefined ? ` -> ${c.after}` : ''}`);
  return changes.join('\n') || 'the failure changed';
}

/** A JUnit XML report of a backtest: one test case per replayed run, failing when its answer changed or its replay failed. */
export function backtestJunit(report: BacktestReport, flowSlug: string): string {
  const target = report.target.kind === 'draft' ? 'draft' : `version ${report.target.number}`;
  return junitXml(
    `backtest ${report.backtestId} of ${flowSlug} (${target})`,
    report.runs.map((pair) => ({
      classname: flowSlug,
      name: pair.executionId,
      ms: pair.candidate.durationMs,
      failure: pair.same ? null : { message: pair.outcome === 'failed' ? 'replay failed' : 'answer changed', text: whyChanged(pair) },
    })),
  );
}
