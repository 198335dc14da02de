import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.ts';
import type { Runtime } from './runtime.ts';
import { DEMO_OWNER, seedDemo } from './demoSeed.ts';

/**
 * What `npm start` prints: on the first start, the demo key (shown only then) and a call that runs
 * the demo flow; on later starts, how to make a new key and the same call. Credentials (the key, an
 * assistant's sign-in code, a console link) only on an interactive terminal: output that is not a
 * terminal is a log somewhere (a container's, a CI job's), and a credential must never reach one.
 * There the banner says which command prints each.
 */
export async function printDemo(runtime: Runtime, app: FastifyInstance, config: Config, consoleApp: FastifyInstance | undefined, interactive: boolean) {
  const seeded = await seedDemo(runtime);
  // Seeded without a terminal: the key is not shown, so the banner reads as on a later start.
  const demo = interactive ? seeded : null;
  const address = app.server.address();
  const base = typeof address === 'object' && address ? `http://${config.host}:${address.port}` : `http://${config.host}:${config.port}`;
  const call = (key: string, flow: string, body: string) => `  curl -X POST -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '${body}' ${base}/api/v1/seq/demo/demo/${flow}/execute`;
  const lines = demo
    ? [
        'Seqflow is running with a demo organization, project, API key and flow.',
        `The demo API key (shown only now): ${demo.apiKey}`,
        'Run the demo flow:',
        call(demo.apiKey, demo.flow, '{"message":"world"}'),
      ]
    : [
        seeded ? 'Seqflow is running with a demo organization, project and flow (its first key is shown only on an interactive terminal).' : 'Seqflow is running. The demo organization exists already; its first key was shown on the first start.',
        'Make a new key for it (printed once):',
        '  npx seqflow apikey create --org demo --project demo --env test',
        'then run the demo flow with it:',
        call('<key>', 'hello', '{"message":"world"}'),
      ];
  lines.push(
    'The essay-feedback example (needs OPENAI_API_KEY or OPENAI_BASE_URL):',
    call(demo?.apiKey ?? '<key>', 'essay-feedback', '{"message":"Yesterday he go to school.","parameters":{"native_language":"Spanish"}}'),
    `Health: curl ${base}/api/v1/health`,
    ...(await assistantLines(runtime, interactive)),
    ...(consoleApp ? await consoleLines(runtime, consoleApp, interactive) : []),
  );
  process.stderr.write(`\n${lines.join('\n')}\n\n`);
}

/** With the embedded OAuth server: where an assistant connects, and a sign-in code for the demo owner. */
async function assistantLines(runtime: Runtime, interactive: boolean): Promise<string[]> {
  if (!runtime.config.embeddedOAuth) return [];
  const lines = [`Assistants (MCP): connect to ${runtime.config.mcp.resource} and sign in as the demo owner with`];
  if (!interactive) return [...lines, `  a one-time code from: npx seqflow login-code --user ${DEMO_OWNER}`];
  try {
    const { issueLoginCode } = await import('../commands/loginCodeCommands.ts');
    const { code, expiresAt } = await issueLoginCode({ ...runtime.commands, db: runtime.db }, { subject: DEMO_OWNER }, { principal: { kind: 'system', id: 'demo' } });
    lines.push(`  the one-time code ${code} (until ${expiresAt}; a new one: npx seqflow login-code --user ${DEMO_OWNER})`);
  } catch {
    lines.push(`  a one-time code from: npx seqflow login-code --user ${DEMO_OWNER}`);
  }
  return lines;
}

/** The operator console, and a one-time link into it (a new one: `npx seqflow console link`). */
async function consoleLines(runtime: Runtime, consoleApp: FastifyInstance, interactive: boolean): Promise<string[]> {
  const address = consoleApp.server.address();
  const host = ['0.0.0.0', '::'].includes(runtime.config.console.host) ? 'localhost' : runtime.config.console.host;
  const url = `http://${host}:${typeof address === 'object' && address ? address.port : runtime.config.console.port}`;
  if (!interactive) return [`Operator console (tRPC at ${url}/internal/trpc): a one-time sign-in link from: npx seqflow console link`];
  const { issueConsoleLink } = await import('../commands/consoleLinkCommands.ts');
  const { token } = await issueConsoleLink(runtime.commands, { operator: 'npm-start' }, { principal: { kind: 'system', id: 'demo' } });
  return [`Operator console (tRPC at ${url}/internal/trpc): sign in once, within 15 minutes, at`, `  ${url}/login?token=${token}`];
}
