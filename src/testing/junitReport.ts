import type { TestRunSummary } from './testRunner.ts';

const escape = (text: string) => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** A JUnit XML report of a suite run, so CI systems show each test case with its failures. */
export function junitReport(suite: { flowSlug: string; target: string; runs: TestRunSummary[] }): string {
  const failures = suite.runs.filter((r) => !r.passed).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const cases = suite.runs.map((run) => {
    const failed = run.results.filter((r) => !r.passed);
    const reasons = run.runStatus === 'completed' ? failed.map((r) => `${r.type}: ${r.reason}`) : [`the run ${run.runStatus}`, ...failed.map((r) => `${r.type}: ${r.reason}`)];
    const body = run.passed ? '' : `\n      <failure message="${escape(reasons[0] ?? 'failed')}">${escape(reasons.join('\n'))}</failure>\n    `;
    return `    <testcase classname="${escape(suite.flowSlug)}" name="${escape(run.name)}" time="${seconds(run.latencyMs)}">${body}</testcase>`;
  });
  const total = suite.runs.reduce((sum, r) => sum + r.latencyMs, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${suite.runs.length}" failures="${failures}" time="${seconds(total)}">`,
    `  <testsuite name="${escape(`${suite.flowSlug} (${suite.target})`)}" tests="${suite.runs.length}" failures="${failures}" time="${seconds(total)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
