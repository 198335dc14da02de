import { packageVersion } from '../config/packageVersion.ts';
import { Command, Option } from 'commander';
import { registerAuditCommands } from './auditCli.ts';
import { registerAuthoringCommands } from './authoringCli.ts';
import { registerBacktestCommand } from './backtestCli.ts';
import { registerConsoleCommands } from './consoleCli.ts';
import { registerDoctorCommand } from './doctorCli.ts';
import { registerFlowCommands } from './flowCli.ts';
import { registerLogCommands } from './logCli.ts';
import { registerModelsCommands } from './modelsCli.ts';
import { registerOAuthCommands } from './oauthCli.ts';
import { registerOrganizationCommands } from './organizationCli.ts';
import { registerProjectCommands } from './projectCli.ts';
import { registerRunCommands } from './runsCli.ts';
import { registerScheduleCommands } from './scheduleCli.ts';
import { registerSecretCommands } from './secretCli.ts';
import { registerTestCommands } from './testCli.ts';
import { registerWebhookCommands } from './webhookCli.ts';

/**
 * The `seqflow` command. JSON on stdout, human messages on stderr, exit 1 on an error and 2 on bad
 * configuration. It works on the same database as the server (DATABASE_URL, or the embedded one in
 * the data dir), whether the server runs or not, and brings the read models up to date before it exits.
 */
export function buildCli(): Command {
  const program = new Command('seqflow').description('Seqflow: auditable, replayable LLM flow execution').version(packageVersion(), '-v, --version').showHelpAfterError();
  // `seqflow --version` is the program's; `seqflow flow export --version 2` is the subcommand's own option.
  program.enablePositionalOptions();

  program
    .command('serve')
    .description('run the HTTP API and the workers (npm start runs this)')
    .addOption(new Option('--role <role>', 'what this process runs').choices(['all', 'api', 'worker']).default('all'))
    .action(async (options: { role: 'all' | 'api' | 'worker' }) => {
      const [{ loadConfig }, { serve }] = await Promise.all([import('../config/config.ts'), import('./serveCommand.ts')]);
      await serve(loadConfig(), options.role);
    });

  registerOrganizationCommands(program);
  registerProjectCommands(program);
  registerAuthoringCommands(program, registerFlowCommands(program));
  registerTestCommands(program);
  registerBacktestCommand(program);
  registerRunCommands(program);
  registerScheduleCommands(program);
  registerWebhookCommands(program);
  registerSecretCommands(program);
  registerLogCommands(program);
  registerDoctorCommand(program);
  registerAuditCommands(program);
  registerConsoleCommands(program);
  registerOAuthCommands(program);
  registerModelsCommands(program);
  return program;
}
