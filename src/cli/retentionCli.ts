import type { Command } from 'commander';
import { cliPrincipal, withRuntime } from './cliSupport.ts';
import { ORG_HELP, PROJECT_HELP, organizationOf, projectOf } from './cliRefs.ts';

/**
 * `seqflow org retention` and `seqflow project retention`: show an organization's retention periods,
 * or set one (`--runs 30d`, `--runs none`). A project's period, when set, applies to its runs in
 * place of the organization's.
 */
export function registerRetentionCommand(parent: Command, scope: 'organization' | 'project') {
  const command = parent
    .command('retention')
    .description(
      scope === 'organization'
        ? "how long the organization's runs keep their personal data after they end (shown, or set with --runs)"
        : "how long the project's runs keep their personal data after they end, in place of the organization's (shown, or set with --runs)",
    )
    .requiredOption('--org <slug|id>', ORG_HELP)
    .option('--runs <period>', 'days after a run ends, like 30d; none: kept');
  if (scope === 'project') command.requiredOption('--project <slug|id>', PROJECT_HELP);
  command.action((o: { org: string; project?: string; runs?: string }) =>
    withRuntime(async (rt) => {
      const [{ parseRetentionPeriod }, { setRetention, retentionOf }] = await Promise.all([import('../domain/retention/retention.ts'), import('../retention/retentionSettings.ts')]);
      const organization = await organizationOf(rt, { org: o.org });
      const projectId = o.project === undefined ? null : (await projectOf(rt, { org: o.org, project: o.project })).id;
      if (o.runs !== undefined) {
        await setRetention(rt.commands, { organizationId: organization.id, projectId, runDays: parseRetentionPeriod(o.runs) }, cliPrincipal);
        await rt.projections.catchUp();
      }
      return retentionOf(rt.db, organization.id);
    }),
  );
}
