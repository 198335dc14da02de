import type { Command } from 'commander';
import { ApiError } from '../domain/errors/apiError.ts';
import { eventLine, positiveInt, printJson, withRuntime } from './cliSupport.ts';

/** `seqflow migrate`, `seqflow events`, `seqflow projections rebuild`: the log and what is built from it. */
export function registerLogCommands(program: Command) {
  program.command('migrate').description('bring the event log and read-model schemas up to date').action(() => withRuntime(async () => ({ migrated: true }), { catchUp: false }));

  program
    .command('events')
    .description('the event log as JSON lines (the audit view)')
    .option('--stream <id>', 'one stream, e.g. org-<id> or flow-<id>')
    .option('--all', 'the whole log in order')
    .option('--from <position>', 'with --all: only events after this position', positiveInt, 0)
    .action((o: { stream?: string; all?: boolean; from: number }) =>
      withRuntime(
        async (rt) => {
          if (!o.stream === !o.all) throw new ApiError('VALIDATION_FAILED', 'give exactly one of --stream ID or --all');
          if (o.stream) {
            for (const e of await rt.eventStore.readStream(o.stream)) printJson(eventLine(e));
            return undefined;
          }
          for (let from = o.from; ; ) {
            const page = await rt.eventStore.readAll(from, 1000);
            if (page.length === 0) return undefined;
            for (const e of page) printJson(eventLine(e));
            from = page.at(-1)!.position;
          }
        },
        { catchUp: false },
      ),
    );

  program
    .command('projections')
    .description('read models')
    .command('rebuild')
    .description('empty every read model and replay the whole log into it')
    .action(() =>
      withRuntime(
        async (rt) => {
          await rt.projections.rebuild();
          return { rebuilt: true, projections: await rt.projections.status() };
        },
        { catchUp: false },
      ),
    );
}
