import type { Command } from 'commander';
import { readJsonFile } from './cliFiles.ts';
import { cliPrincipal, positiveInt, withRuntime, withoutPosition } from './cliSupport.ts';
import { FLOW_HELP, type FlowRef, ORG_HELP, PROJECT_HELP, type ProjectRef } from './cliRefs.ts';
import { findFlow, findProject } from '../queries/namedEntities.ts';
import type { Runtime } from '../runtime/runtime.ts';

type FlowOptions = FlowRef;
/** The slugs the flow commands take, of the flow the options name (by slugs or id). */
const flowRef = async (rt: Runtime, o: FlowOptions) => {
  const found = await findFlow(rt.db, o);
  return { organizationSlug: found.organization_slug, projectSlug: found.project_slug, flowSlug: found.slug };
};
const withFlowOptions = (command: Command) => command.option('--org <slug|id>', ORG_HELP).option('--project <slug|id>', PROJECT_HELP).requiredOption('--flow <slug|id>', FLOW_HELP);

/** `seqflow flow import|export|versions|promote`; returns the `flow` command for the authoring commands. */
export function registerFlowCommands(program: Command): Command {
  const flow = program.command('flow').description('flows');
  flow
    .command('import')
    .option('--org <slug|id>', ORG_HELP)
    .requiredOption('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--file <path>', 'flow file (JSON)')
    .option('--publish', 'publish the imported draft as a new version (an invalid file changes nothing)')
    .option('--note <text>', 'note of the published version')
    .option('--production', 'publish and make that version production')
    .action((o: ProjectRef & { file: string; publish?: boolean; note?: string; production?: boolean }) =>
      withRuntime(async (rt) => {
        const file = await readFlowFile(o.file);
        const project = await findProject(rt.db, o);
        const { importFlow } = await import('../commands/flowCommands.ts');
        const imported = await importFlow(rt.commands, { organizationSlug: project.organization_slug, projectSlug: project.slug, file, publish: o.publish, note: o.note ?? null, production: o.production }, cliPrincipal);
        return { flowId: imported.flowId, slug: imported.slug, versionId: imported.versionId };
      }),
    );

  withFlowOptions(flow.command('export'))
    .option('--version <n>', 'a published version number (default: the draft)', positiveInt)
    .action((o: FlowOptions & { version?: number }) =>
      withRuntime(async (rt) => {
        const { exportFlow } = await import('../commands/flowCommands.ts');
        return exportFlow(rt.commands, { ...(await flowRef(rt, o)), version: o.version });
      }, { catchUp: false }),
    );

  withFlowOptions(flow.command('versions'))
    .description("the flow's published versions, and which one is production")
    .action((o: FlowOptions) =>
      withRuntime(async (rt) => {
        const { listVersions } = await import('../commands/flowCommands.ts');
        return listVersions(rt.commands, await flowRef(rt, o));
      }, { catchUp: false }),
    );

  withFlowOptions(flow.command('promote'))
    .description('make an existing published version the production version (nothing is published again); with the promotion gate on, its tests must have passed, or --force')
    .requiredOption('--version <n>', 'the version number', positiveInt)
    .option('--force', 'past the promotion gate (recorded as its own event)')
    .option('--reason <text>', 'why, with --force')
    .action((o: FlowOptions & { version: number; force?: boolean; reason?: string }) =>
      withRuntime(async (rt) => {
        const { promoteVersionNumber } = await import('../authoring/flowAuthoring.ts');
        const force = o.force ? { reason: o.reason ?? null } : undefined;
        return withoutPosition(await promoteVersionNumber({ ...rt.commands, db: rt.db }, { ...(await flowRef(rt, o)), version: o.version, force }, cliPrincipal));
      }),
    );
  return flow;
}

const readFlowFile = (path: string) => readJsonFile(path, { label: `--file ${path}`, code: 'FLOW_FILE_INVALID' });
