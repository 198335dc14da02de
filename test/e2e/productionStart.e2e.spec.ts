import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, allEventText, createTestDatabase } from '../support/testDatabase.ts';
import { ROOT } from '../support/runProcess.ts';
import { freePort } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { signalGroup } from '../support/signalGroup.ts';

/**
 * `seqflow serve` started as a deployment starts it (its own database), with its output collected:
 * piped (a log: a container's, a CI job's), or through a pseudo-terminal (`script`) as a person at a
 * terminal sees it. Resolves once it printed `until`, or the process ended.
 */
async function serveAndRead(env: Record<string, string>, options: { terminal: boolean; until: RegExp }) {
  const command = [process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'serve', '--role', 'all'];
  const child: ChildProcess = options.terminal
    ? spawn('script', ['-qefc', command.map((part) => `'${part}'`).join(' '), '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(command[0]!, command.slice(1), { cwd: ROOT, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let ended = false;
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => ((ended = true), resolve(code))));
  await until(async () => ended || options.until.test(output), `serve to print ${options.until}`, 90_000);
  return {
    output: () => output.replace(/\r\n/g, '\n'),
    async stop() {
      signalGroup(child, 'SIGTERM');
      await exited;
    },
  };
}

describe('a production start is safe by default: no demo with its own database, no credential in a log', () => {
  let database: TestDatabase;
  const env = async () => ({
    DATABASE_URL: database.url,
    SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
    PORT: String(await freePort()),
    SEQFLOW_CONSOLE_PORT: '0',
    SEQFLOW_METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    SEQFLOW_LOG_FORMAT: 'json',
    SEQFLOW_DEMO: '',
  });

  beforeAll(async () => {
    database = await createTestDatabase('production_start');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('seeds no demo organization when DATABASE_URL is set and SEQFLOW_DEMO is not', async () => {
    const served = await serveAndRead(await env(), { terminal: false, until: /"msg":"seqflow started"/ });
    await served.stop();
    expect(served.output()).toContain('"msg":"seqflow started"');
    expect(served.output()).not.toContain('demo');
    // The log holds the service's own start-up records, and no organization.
    const log = await allEventText(database.url);
    expect(log).not.toContain('OrganizationCreated');
    expect(log).not.toContain('"slug":"demo"');
  }, 120_000);

  it('with SEQFLOW_DEMO=true and its output piped, names the commands that print credentials and prints none', async () => {
    const served = await serveAndRead({ ...(await env()), SEQFLOW_DEMO: 'true' }, { terminal: false, until: /Operator console/ });
    await served.stop();
    const output = served.output();
    expect(output).toContain('its first key is shown only on an interactive terminal');
    expect(output).toContain('npx seqflow apikey create --org demo --project demo --env test');
    expect(output).toContain('a one-time code from: npx seqflow login-code --user demo-owner');
    expect(output).toContain('a one-time sign-in link from: npx seqflow console link');
    expect(output).not.toMatch(/sf_(live|test)_/);
    expect(output).not.toMatch(/token=|the one-time code [A-Z0-9]/);
  }, 120_000);

  it('at an interactive terminal, shows the demo key, an assistant sign-in code and a console link once', async () => {
    // A fresh database: the first start seeds the demo and has its key to show.
    const fresh = await createTestDatabase('production_start_tty');
    try {
      const served = await serveAndRead({ ...(await env()), DATABASE_URL: fresh.url, SEQFLOW_DEMO: 'true' }, { terminal: true, until: /login\?token=\S+/ });
      await served.stop();
      const output = served.output();
      expect(output).toMatch(/The demo API key \(shown only now\): sf_test_\S+/);
      expect(output).toMatch(/the one-time code [A-HJ-NP-Z2-9]{5}-[A-HJ-NP-Z2-9]{5} /);
      expect(output).toMatch(/\/login\?token=\S+/);
    } finally {
      await fresh.drop();
    }
  }, 120_000);

  it('refuses to serve on a Node.js older than package.json engines, in one line (the machine\'s own Node is 20)', async () => {
    const old = ['/usr/bin/node', '/usr/local/bin/node', '/bin/node'].find((node) => existsSync(node) && Number(execFileSync(node, ['-p', 'process.versions.node.split(".")[0]']).toString().trim()) < 22);
    if (!old) throw new Error('No Node.js older than 22 on this machine at /usr/bin/node: the machine kind this suite runs on has Node 20 there');
    const started = spawn(old, ['bin/seqflow.js', 'serve'], { cwd: ROOT, env: { ...process.env, ...(await env()) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    started.stderr!.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => started.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^seqflow serve needs Node\.js >=22\.19\.0 \(package\.json engines\); this is v20\.\S+: install a newer Node\.js, or run it with npx -y -p node@24 -- npm start\n$/);
  }, 60_000);
});
