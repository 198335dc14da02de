import type { Command } from 'commander';
import { missedFiringPolicies } from '../domain/schedules/scheduleEvents.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { FLOW_HELP, ORG_HELP, PROJECT_HELP, flowIdOf, organizationOf, projectOf } from './cliRefs.ts';
import { parseJsonInput, readTextFile } from './cliFiles.ts';
import { cliPrincipal, withRuntime } from './cliSupport.ts';

interface AddOptions {
  org?: string;
  project?: string;
  flow: string;
  cron: string;
  timezone?: string;
  input: string;
  callbackUrl?: string;
  callbackEvents?: string;
  missed?: string;
}

/**
 * `seqflow schedule add|list|pause|resume|remove`: jobs of a flow's production version at the times
 * a cron expression names, fired by the worker processes (each firing once, whatever their number).
 */
export function registerScheduleCommands(program: Command) {
  const schedule = program.command('schedule').description("a flow's schedules: a job of its production version at each time a cron expression names");
  schedule
    .command('add')
    .description('add a schedule: each firing is a job of the production version (at that time) with the input, its webhooks to --callback-url')
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--cron <expression>', 'five fields (minute hour day-of-month month day-of-week), or six with seconds first, like "0 7 * * *"')
    .option('--timezone <zone>', 'IANA time zone the expression is read in, like Europe/Paris (default UTC)')
    .requiredOption('--input <file>', 'JSON file with the jobs\' input, as a /jobs body: {"message": "...", "parameters": {...}, "attachments": [...]}; - reads standard input')
    .option('--callback-url <url>', 'https URL that receives the jobs\' webhooks (as a /jobs callbackUrl)')
    .option('--callback-events <list>', 'comma-separated: flow.completed, flow.failed (default both)')
    .option('--missed <policy>', `firings missed while no worker ran: ${missedFiringPolicies.join(' or ')} (default run)`)
    // `add` brings the read models up to date itself, to answer the schedule as `list` shows it.
    .action((o: AddOptions) => withRuntime((rt) => add(rt, o), { catchUp: false }));
  schedule
    .command('list')
    .description('schedules with their next firing and their last: all, or an organization\'s, a project\'s or a flow\'s')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .option('--flow <slug|id>', FLOW_HELP)
    .option('--all', 'removed schedules too')
    .action((o: { org?: string; project?: string; flow?: string; all?: boolean }) => withRuntime((rt) => list(rt, o), { catchUp: false }));
  for (const change of ['pause', 'resume', 'remove'] as const) {
    schedule
      .command(change)
      .description(
        { pause: 'stop firing until resumed (the firings in between are neither run nor missed)', resume: 'fire again, from now on', remove: 'fire no more (its firings and their runs stay in the log)' }[change],
      )
      .requiredOption('--schedule <id>', 'the schedule')
      .action((o: { schedule: string }) =>
        withRuntime(async (rt) => {
          const { changeSchedule } = await import('../schedules/scheduleCommands.ts');
          const { position: _p, ...changed } = await changeSchedule(rt, o.schedule, change, cliPrincipal);
          return changed;
        }),
      );
  }
}

async function add(rt: Runtime, o: AddOptions) {
  const { addSchedule } = await import('../schedules/scheduleCommands.ts');
  const flowId = await flowIdOf(rt, { flow: o.flow, ...(o.org === undefined ? {} : { org: o.org }), ...(o.project === undefined ? {} : { project: o.project }) });
  const source = { label: `--input ${o.input}`, code: 'VALIDATION_FAILED' } as const;
  const input = parseJsonInput(o.input === '-' ? await readStdin() : await readTextFile(o.input, source), source);
  const added = await addSchedule(
    { db: rt.db, commands: rt.commands, guard: rt.execution.guard, callbacks: { plainHttpInAllowedRanges: rt.config.webhooks.plainHttpInAllowedRanges } },
    { flowId, cron: o.cron, timezone: o.timezone, input, callbackUrl: o.callbackUrl, callbackEvents: o.callbackEvents?.split(','), missed: o.missed },
    cliPrincipal,
  );
  await rt.projections.catchUp();
  const { listSchedules } = await import('../queries/scheduleQueries.ts');
  return (await listSchedules(rt.db, { flowId })).find((s) => s.scheduleId === added.scheduleId);
}

async function list(rt: Runtime, o: { org?: string; project?: string; flow?: string; all?: boolean }) {
  const { listSchedules } = await import('../queries/scheduleQueries.ts');
  const scope = { ...(o.org === undefined ? {} : { org: o.org }), ...(o.project === undefined ? {} : { project: o.project }) };
  return {
    items: await listSchedules(rt.db, {
      ...(o.org === undefined ? {} : { organizationId: (await organizationOf(rt, { org: o.org })).id }),
      ...(o.project === undefined ? {} : { projectId: (await projectOf(rt, { ...scope, project: o.project })).id }),
      ...(o.flow === undefined ? {} : { flowId: await flowIdOf(rt, { ...scope, flow: o.flow }) }),
      includeRemoved: o.all === true,
    }),
  };
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
