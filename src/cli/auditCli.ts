import type { Command } from 'commander';
import { withRuntime } from './cliSupport.ts';

/** `seqflow audit ...`: what an auditor checks, from the log alone. */
export function registerAuditCommands(program: Command) {
  const audit = program.command('audit').description('audits from the event log');
  audit
    .command('verify-log')
    .description("recompute every stream's hash chain (or one stream's) and report the first event changed, removed or reordered; exit 1 if any")
    .option('--stream <id>', 'only this stream (e.g. execution-<id>, flow-<id>)')
    .action((o: { stream?: string }) =>
      withRuntime(
        async (rt) => {
          const { verifyLog } = await import('../audit/logVerification.ts');
          const result = await verifyLog(rt.eventStore, { streamId: o.stream });
          if (result.problem) {
            const { kind, streamId, revision, position, detail } = result.problem;
            process.stderr.write(`seqflow: the log was tampered with: event ${kind} in ${streamId} at revision ${revision}${position === null ? '' : ` (position ${position})`}: ${detail}\n`);
            process.exitCode = 1;
          }
          return { ok: result.problem === null, streams: result.streams, events: result.events, problem: result.problem };
        },
        { catchUp: false },
      ),
    );
}
