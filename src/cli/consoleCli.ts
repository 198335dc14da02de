import type { Command } from 'commander';
import type { Config } from '../config/config.ts';
import { cliPrincipal, withRuntime } from './cliSupport.ts';

/** Where the console listens, as a browser on this machine reaches it. */
export const consoleUrl = (config: Config) => `http://${['0.0.0.0', '::'].includes(config.console.host) ? 'localhost' : config.console.host}:${config.console.port}`;

/** `seqflow operator grant|revoke` and `seqflow console link|revoke`: who may use the operator console. */
export function registerConsoleCommands(program: Command) {
  const operator = program.command('operator').description('the operator role (the console)');
  for (const action of ['grant', 'revoke'] as const) {
    operator
      .command(action)
      .description(action === 'grant' ? 'let a user subject use the operator console (with an OAuth token of OAUTH_ISSUER)' : 'take the operator role away (at once: every call checks it)')
      .requiredOption('--user <subject>')
      .action((o: { user: string }) =>
        withRuntime(async (rt) => (await import('../commands/operatorCommands.ts')).setOperator(rt.commands, { subject: o.user, operator: action === 'grant' }, cliPrincipal), { catchUp: false }),
      );
  }
  const consoleCommand = program.command('console').description('the operator console');
  consoleCommand
    .command('link')
    .description('print a one-time sign-in link to the console (15 minutes, once; its page asks to confirm), for local use')
    .action(() =>
      withRuntime(async (rt) => {
        const { issueConsoleLink } = await import('../commands/consoleLinkCommands.ts');
        const { token, expiresAt } = await issueConsoleLink(rt.commands, { operator: cliPrincipal.principal.id }, cliPrincipal);
        return { url: `${consoleUrl(rt.config)}/login?token=${token}`, expiresAt };
      }, { catchUp: false }),
    );
  consoleCommand
    .command('revoke')
    .description('end every console session opened with a link so far (at once: every call checks it); OAuth operators are not affected')
    .action(() => withRuntime(async (rt) => (await import('../commands/operatorCommands.ts')).endConsoleLinkSessions(rt.commands, cliPrincipal), { catchUp: false }));
}
