import type { Command } from 'commander';
import { withRuntime } from './cliSupport.ts';

/**
 * `seqflow doctor`: one watchdog check against the database the service uses, from any machine that
 * reaches it (src/watchdog/watchdog.ts): silent runs, jobs and deliveries past their claim caps,
 * projections stalled or behind. JSON on standard output; exit 1 when it found anything.
 */
export function registerDoctorCommand(program: Command) {
  program
    .command('doctor')
    .description("check the service's promises: runs running with no event for too long, jobs and deliveries past their claim caps, projections stalled or behind (JSON; exit 1 when something is wrong)")
    .action(() =>
      withRuntime(
        async (rt) => {
          const report = await rt.watchdog.check();
          if (report.findings.length > 0) process.exitCode = 1;
          return { ok: report.findings.length === 0, ...report };
        },
        { catchUp: false },
      ),
    );
}
