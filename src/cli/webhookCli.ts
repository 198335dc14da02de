import type { Command } from 'commander';
import { cliPrincipal, withRuntime, withoutPosition } from './cliSupport.ts';
import { ORG_HELP, organizationOf } from './cliRefs.ts';

/** `seqflow webhooks secret` and `seqflow deliveries redeliver`. */
export function registerWebhookCommands(program: Command) {
  program
    .command('webhooks')
    .description('webhook signing secrets')
    .command('secret')
    .description("print the organization's full signing secret (issued on first use), for receivers using verifyWebhook; --rotate issues a new one")
    .requiredOption('--org <slug|id>', ORG_HELP)
    .option('--rotate', 'rotate: a new secret, the previous one still signs v2 for SEQFLOW_SECRET_GRACE_SECONDS')
    .action((o: { org: string; rotate?: boolean }) =>
      withRuntime(async (rt) => {
        const secrets = await import('../commands/webhookSecretCommands.ts');
        const organizationId = (await organizationOf(rt, o)).id;
        if (o.rotate) await secrets.rotateWebhookSecret(rt.commands, organizationId, rt.masterKey, rt.config.webhooks.secretGraceSeconds, cliPrincipal);
        const view = await secrets.getWebhookSecret(rt.commands, organizationId, rt.masterKey, cliPrincipal);
        const { current, previous } = await secrets.signingSecrets(rt.commands, organizationId, rt.masterKey, cliPrincipal);
        process.stderr.write('Keep this secret on the receiver only (e.g. SEQFLOW_WEBHOOK_SECRETS, as examples/webhook-receiver.mjs reads it).\n');
        return { organizationId, secret: current, previousSecret: previous, version: view.version, createdAt: view.createdAt, rotatedAt: view.rotatedAt, graceUntil: view.graceUntil };
      }),
    );

  program
    .command('deliveries')
    .description('webhook deliveries')
    .command('redeliver')
    .description('attempt a dead-lettered or permanently failed delivery again, under the same id')
    .requiredOption('--delivery <id>')
    .action((o: { delivery: string }) =>
      withRuntime(async (rt) => {
        const { redeliver } = await import('../commands/deliveryCommands.ts');
        return withoutPosition(await redeliver(rt.commands, o.delivery, cliPrincipal));
      }),
    );
}
