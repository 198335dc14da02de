import type { TestRunSummary } from './testRunner.ts';

export const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** One JUnit test case: its failure (a message and the whole reason) when it failed. */
export interface JunitCase {
  classname: string;
  name: string;
  ms: number;
  failure: { message: string; text: string } | null;
}

/** A JUnit XML document of one suite, as CI systems read it. */
export function junitXml(suiteName: string, cases: JunitCase[]): string {
  const failures = cases.filter((c) => c.failure).length;
  const total = cases.reduce((sum, c) => sum + c.ms, 0);
  const lines = cases.map((c) => {
    const body = c.failure ? `\n      <failure message="${escapeXml(c.failure.message)}">${escapeXml(c.failure.text)}</failure>\n    ` : '';
    return `    <testcase classname="${escapeXml(c.classname)}" name="${escapeXml(c.name)}" time="${seconds(c.ms)}">${body}</testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${cases.length}" failures="${failures}" time="${seconds(total)}">`,
    `  <testsuite name="${escapeXml(suiteName)}" tests="${cases.length}" failures="${failures}" time="${seconds(total)}">`,
    ...lines,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** A JUnit XML report of a suite run, so CI systems show each test case with its failures. */
export function junitReport(suite: { flowSlug: string; target: string; runs: TestRunSummary[] }): string {
  return junitXml(
    `${suite.flowSlug} (${suite.target})`,
    suite.runs.map((run) => {
      const failed = run.results.filter((r) => !r.passed);
      const reasons = run.runStatus === 'completed' ? failed.map(reasonOf) : [`the run ${run.runStatus}`, ...failed.map(reasonOf)];
      return { classname: suite.flowSlug, name: run.name, ms: run.latencyMs, failure: run.passed ? null : { message: reasons[0] ?? 'failed', text: reasons.join('\n') } };
    }),
  );
}

/** An assertion's reason as a report line, naming the block it checked. */
const reasonOf = (r: { type: string; step?: string; reason: string }) => `${r.type}${r.step === undefined ? '' : ` (step ${r.step})`}: ${r.reason}`;
