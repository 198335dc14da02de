import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createLogger, logFormatFor, logsWritten } from '../../src/runtime/logger.ts';
import { ROOT, TSX } from '../support/runProcess.ts';

// What `seqflow serve` does with its logger, in a process of its own.
const program = `
  import { createLogger, logFormatFor } from './src/runtime/logger.ts';
  const logger = createLogger('info', 1, logFormatFor('auto', process.stdout.isTTY === true));
  logger.info({ executionId: 'e1', key: 'sf_live_not_for_logs' }, 'run finished');
`;
const run = (viaTerminal: boolean) =>
  viaTerminal
    ? // util-linux \`script\` gives the child a pseudo-terminal as its standard output.
      execFileSync('script', ['-qec', `${TSX} --eval "${program.replace(/"/g, '\\"')}"`, '/dev/null'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TERM: 'xterm' } })
    : execFileSync(TSX, ['--eval', program], { cwd: ROOT, encoding: 'utf8' });

describe('log format: pretty at a terminal, JSON lines otherwise', () => {
  it('chooses by SEQFLOW_LOG_FORMAT, and by the terminal when it is auto', () => {
    expect([logFormatFor('auto', true), logFormatFor('auto', false), logFormatFor('json', true), logFormatFor('pretty', false)]).toEqual(['pretty', 'json', 'json', 'pretty']);
  });

  it('writes one JSON object per line when standard output is not a terminal', () => {
    const lines = run(false).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: 'run finished', executionId: 'e1', key: '[redacted]' });
  });

  it('writes readable lines at a terminal, still redacted', () => {
    const output = run(true);
    expect(output).toContain('run finished');
    expect(output).toContain('INFO');
    expect(output).toContain('[redacted]');
    expect(output).not.toContain('sf_live_not_for_logs');
    expect(() => JSON.parse(output.trim())).toThrow();
  });
});

describe('the last lines before an exit', () => {
  // The JSON log's wait (an asynchronous destination) is checked by shutdownWithoutDatabase.e2e: its log ends with `stopped`.
  it('has nothing to wait for on a stream that writes synchronously (stderr)', async () => {
    const logger = createLogger('silent', 2);
    // Resolved at once: a wait for a 'drain' that never comes would outlast the test's timeout.
    await logsWritten(logger, 600_000);
  });
});
