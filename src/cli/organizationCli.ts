import { type Command, InvalidArgumentError, Option } from 'commander';
import { ApiError } from '../domain/errors/apiError.ts';
import { cliPrincipal, positiveInt, readSecret, withRuntime, withoutPosition } from './cliSupport.ts';
import { ORG_HELP, organizationOf, organizationSlugOf } from './cliRefs.ts';
import { registerRetentionCommand } from './retentionCli.ts';

/** A time the caller gave (`--since`), refused with the form it takes when it is none. */
function isoTime(value: string): Date {
  const at = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value) ? new Date(value.length === 10 ? `${value}T00:00:00Z` : value) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw new InvalidArgumentError(`'${value}' is not a time in ISO 8601 (e.g. 2026-11-01 or 2026-11-01T12:00:00Z)`);
  return at;
}

/** `seqflow org ...`, `seqflow member add` and `seqflow login-code`. */
export function registerOrganizationCommands(program: Command) {
  const org = program.command('org').description('organizations');
  org
    .command('create')
    .requiredOption('--slug <slug>')
    .requiredOption('--name <name>')
    .action((o: { slug: string; name: string }) =>
      withRuntime(async (rt) => {
        const { createOrganization } = await import('../commands/organizationCommands.ts');
        const { id, slug } = await createOrganization(rt.commands, o, cliPrincipal);
        return { id, slug };
      }),
    );

  registerRetentionCommand(org, 'organization');

  org
    .command('list')
    .description('every organization, with how many projects it has')
    .action(() => withRuntime(async (rt) => (await import('../queries/namedEntities.ts')).listOrganizations(rt.db)));

  org
    .command('credits')
    .description('grant credits (tokens) to an organization, or show its balance')
    .requiredOption('--org <slug|id>', ORG_HELP)
    .option('--grant <tokens>', 'tokens to add', positiveInt)
    .option('--show', 'print the balance')
    .action((o: { org: string; grant?: number; show?: boolean }) =>
      withRuntime(async (rt) => {
        if (o.grant === undefined && !o.show) throw new ApiError('VALIDATION_FAILED', 'give --grant N or --show');
        const [{ grantCredits }, { creditBalance }] = await Promise.all([import('../commands/organizationCommands.ts'), import('../queries/creditQueries.ts')]);
        const { id: organizationId, slug } = await organizationOf(rt, o);
        if (o.grant !== undefined) await grantCredits(rt.commands, { organizationSlug: slug, tokens: o.grant }, cliPrincipal);
        await rt.projections.catchUp();
        return { organizationId, balance: await creditBalance(rt.db, organizationId) };
      }),
    );

  org
    .command('usage')
    .description("what the organization's llm calls used, summed by flow, model or UTC day: calls, tokens and cost in US dollars (at the prices when each call ran)")
    .requiredOption('--org <slug|id>', ORG_HELP)
    .option('--since <time>', 'only calls at or after this time (ISO 8601, e.g. 2026-11-01 or 2026-11-01T12:00:00Z)', isoTime)
    .addOption(new Option('--by <grouping>', 'how to sum').choices(['flow', 'model', 'day']).default('flow'))
    .action((o: { org: string; since?: Date; by: 'flow' | 'model' | 'day' }) =>
      withRuntime(async (rt) => {
        const { organizationUsage } = await import('../queries/usageQueries.ts');
        const { id: organizationId } = await organizationOf(rt, o);
        await rt.projections.catchUp();
        return { organizationId, since: o.since?.toISOString() ?? null, by: o.by, ...(await organizationUsage(rt.db, organizationId, { since: o.since, by: o.by })) };
      }),
    );

  org
    .command('provider-key')
    .description("set the organization's own model-provider key (stored encrypted), read from SEQFLOW_PROVIDER_KEY or standard input")
    .requiredOption('--org <slug|id>', ORG_HELP)
    .option('--provider <name>', 'the provider the key is for: openai, anthropic, google, azure or compatible', 'openai')
    .option('--base-url <url>', "where this key's requests go (default: the service's base URL for that provider; required for azure: the resource's endpoint)")
    .action((o: { org: string; baseUrl?: string; provider: string }) =>
      withRuntime(async (rt) => {
        const key = await readSecret('SEQFLOW_PROVIDER_KEY', 'provider API key');
        const { setProviderKey } = await import('../commands/organizationCommands.ts');
        return withoutPosition(await setProviderKey(rt.commands, { organizationSlug: await organizationSlugOf(rt, o.org), key, baseUrl: o.baseUrl ?? null, provider: o.provider }, rt.masterKey, cliPrincipal));
      }),
    );

  program
    .command('member')
    .description('organization members')
    .command('add')
    .requiredOption('--org <slug|id>', ORG_HELP)
    .requiredOption('--user <subject>', "the member's user subject (the `sub` of their JWT)")
    .addOption(new Option('--role <role>').choices(['owner', 'admin', 'member']).makeOptionMandatory())
    .action((o: { org: string; user: string; role: string }) =>
      withRuntime(async (rt) => {
        const { addMember } = await import('../commands/organizationCommands.ts');
        return withoutPosition(await addMember(rt.commands, { organizationSlug: await organizationSlugOf(rt, o.org), userSubject: o.user, role: o.role }, cliPrincipal));
      }),
    );

  program
    .command('login-code')
    .description("a one-time code with which a member signs in to the embedded OAuth server (an assistant's sign-in page)")
    .requiredOption('--user <subject>', "the member's user subject")
    .action((o: { user: string }) =>
      withRuntime(async (rt) => {
        await rt.projections.catchUp();
        const { issueLoginCode } = await import('../commands/loginCodeCommands.ts');
        return issueLoginCode({ ...rt.commands, db: rt.db }, { subject: o.user }, cliPrincipal);
      }),
    );
}
