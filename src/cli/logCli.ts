import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { eventLine, positiveInt, printJson, withRuntime } from './cliSupport.ts';

/** `seqflow migrate`, `seqflow events`, `seqflow projections rebuild`: the log and what is built from it. */
export function registerLogCommands(program: Command) {
  program
    .command('migrate')
    .description('bring the event log and read-model schemas up to date; --plan: say which migrations would run and what each does, and run none')
    .option('--plan', 'list the migrations that have not run, each with what it does, and change nothing')
    .action(async (o: { plan?: boolean }) => {
      if (!o.plan) return withRuntime(async (rt) => ({ migrated: true, ran: rt.migrations }), { catchUp: false });
      const [{ loadConfig }, { createLogger }, { migrationPlanOf }] = await Promise.all([import('../config/config.ts'), import('../runtime/logger.ts'), import('../runtime/migrationPlan.ts')]);
      const plan = await migrationPlanOf(loadConfig(), createLogger(process.env.LOG_LEVEL ?? 'warn', 2));
      printJson({ upToDate: plan.eventLog.length === 0 && plan.readModels.length === 0, pending: plan });
    });

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

  const projections = program.command('projections').description('read models');
  const deps = async (rt: { db: Kysely<ReadModels>; eventStore: EventStore; logger: Logger; databaseUrl: string }) => ({ db: rt.db, eventStore: rt.eventStore, projections: (await import('../projections/allProjections.ts')).allProjections, logger: rt.logger, databaseUrl: rt.databaseUrl });
  projections
    .command('rebuild')
    .description('replay the whole log into a shadow copy of every read model, then swap it in (the API keeps serving the old rows until then)')
    .action(() =>
      withRuntime(
        async (rt) => {
          const { position } = await (await import('../projections/readModelVerification.ts')).rebuildReadModels(await deps(rt));
          return { rebuilt: true, position, projections: await rt.projections.status() };
        },
        { catchUp: false },
      ),
    );
  projections
    .command('verify')
    .description('rebuild every read model into a shadow while the service serves, compare table by table with the live ones; exit 1 on any difference')
    .action(() =>
      withRuntime(
        async (rt) => {
          const result = await (await import('../projections/readModelVerification.ts')).verifyReadModels(await deps(rt));
          for (const t of result.tables.filter((table) => table.liveHash !== table.shadowHash)) {
            process.stderr.write(`seqflow: read model ${t.table} differs from its rebuild at log position ${result.at}: ${t.liveRows} live rows, ${t.shadowRows} rebuilt; only live: ${JSON.stringify(t.onlyLive)}; only rebuilt: ${JSON.stringify(t.onlyShadow)}\n`);
          }
          if (result.unreadable.count > 0) process.stderr.write(`seqflow: ${result.unreadable.count} event(s) hold sealed data that does not open (rebuilt as erased): ${JSON.stringify(result.unreadable.events.slice(0, 5))}\n`);
          if (!result.ok) process.exitCode = 1;
          return { ok: result.ok, at: result.at, tables: result.tables.map(({ table, liveRows, shadowRows, liveHash, shadowHash }) => ({ table, liveRows, shadowRows, same: liveHash === shadowHash })), unreadable: result.unreadable };
        },
        { catchUp: false },
      ),
    );
}
