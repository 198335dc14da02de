import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAssistant } from '../support/oauthAssistant.ts';
import { ROOT, runCli, runInspectorCli } from '../support/runProcess.ts';
import { createScratchDataFolder, removeScratchDataFolder } from '../support/scratchDataFolder.ts';
import { signalGroup } from '../support/signalGroup.ts';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** `npm start` as its own process group; resolves once it has printed its banner (or gave up waiting). */
async function npmStart(env: NodeJS.ProcessEnv) {
  const server = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (chunk) => (stderr += chunk));
  let stdout = ''; // its log: kept (the last 16 KiB) to say what happened when a stop goes wrong
  server.stdout.on('data', (chunk) => (stdout = (stdout + chunk).slice(-16_384)));
  const exited = new Promise<string>((resolve) => server.on('close', () => resolve('closed')));
  for (let i = 0; i < 240 && !stderr.includes('Health:'); i++) await new Promise((r) => setTimeout(r, 250));
  return { stderr: () => stderr, log: () => stdout, exited, stop: () => void signalGroup(server, 'SIGTERM') };
}

/**
 * One `npm start` on a fresh data folder, checked one thing at a time in order (each test with the
 * time its processes need on a loaded machine), then stopped and started again.
 */
describe('npm start on a fresh data dir (embedded PostgreSQL, DATABASE_URL unset)', () => {
  let dataDir: string;
  let port: number;
  let env: NodeJS.ProcessEnv;
  let server: Awaited<ReturnType<typeof npmStart>>;
  let stderr: string;
  const inDataDir = () => ({ DATABASE_URL: '', SEQFLOW_MASTER_KEY: '', SEQFLOW_DATA_DIR: dataDir });

  beforeAll(async () => {
    dataDir = await createScratchDataFolder('start');
    port = await freePort();
    env = { ...process.env, ...inDataDir(), PORT: String(port), SEQFLOW_CONSOLE_PORT: '0', LOG_LEVEL: 'warn' };
    server = await npmStart(env);
    stderr = server.stderr();
  }, 120_000);
  afterAll(async () => {
    server?.stop();
    // What the last server said is the evidence when its PostgreSQL outlives it.
    if (dataDir) await removeScratchDataFolder(dataDir).catch((error: unknown) => Promise.reject(new Error(`${String(error)}; the last npm start wrote:\n${server?.stderr().slice(-8_192)}\nand logged:\n${server?.log()}`)));
  });

  it('seeds the demo; its output piped (a log), prints no credential but the commands that print them, and a curl that works with the key made so', async () => {
    expect(stderr).toContain('its first key is shown only on an interactive terminal');
    expect(stderr).not.toMatch(/sf_(live|test)_|token=|the one-time code [A-Z0-9]/);
    const curl = /curl -X POST -H 'Authorization: Bearer <key>' -H 'Content-Type: application\/json' -d '(\{"message":"world"\})' (\S+)/.exec(stderr);
    expect(curl).not.toBeNull();
    const [, body, url] = curl!;
    expect(stderr).toContain('npx seqflow apikey create --org demo --project demo --env test');
    const made = await runCli(['apikey', 'create', '--org', 'demo', '--project', 'demo', '--env', 'test'], inDataDir());
    expect(made.code, made.stderr).toBe(0);
    const key = (JSON.parse(made.stdout) as { key: string }).key;
    const run = await fetch(url!, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ status: 'completed', result: { greeting: 'Hello, world!' }, blockCount: 2 });
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);
    expect(stderr).toContain(`Data folder: ${dataDir}`);
  });

  it('signs an assistant in with a one-time code from the command it names; the MCP Inspector\'s CLI lists the tools', async () => {
    const mcpUrl = /Assistants \(MCP\): connect to (\S+) and sign in/.exec(stderr)?.[1];
    expect(stderr).toContain('a one-time code from: npx seqflow login-code --user demo-owner');
    const issued = await runCli(['login-code', '--user', 'demo-owner'], inDataDir());
    expect(issued.code, issued.stderr).toBe(0);
    const code = (JSON.parse(issued.stdout) as { code: string }).code;
    expect(mcpUrl).toBe(`http://127.0.0.1:${port}/api/v1/mcp/`);
    const assistant = await signInAssistant(mcpUrl!, code!);
    const inspector = await runInspectorCli([mcpUrl!, '--transport', 'http', '--method', 'tools/list', '--header', `Authorization: Bearer ${assistant.stored!.access_token}`], dataDir);
    expect(inspector.code, inspector.stderr).toBe(0);
    const listed = (JSON.parse(inspector.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(listed).toEqual(expect.arrayContaining(['list_projects', 'hydrate_project', 'add_block', 'publish_version', 'set_production_version', 'run_all_tests', 'get_step_trace', 'backtest_version', 'get_backtest', 'create_test_case_from_run']));
    expect(listed).toHaveLength(31);
  }, 120_000);

  it('names the command for an operator console link, which opens a session once', async () => {
    const consoleAt = /Operator console \(tRPC at (\S+)\/internal\/trpc\): a one-time sign-in link from: npx seqflow console link/.exec(stderr);
    expect(consoleAt).not.toBeNull();
    const linked = await runCli(['console', 'link'], { ...inDataDir(), SEQFLOW_CONSOLE_PORT: new URL(consoleAt![1]!).port });
    expect(linked.code, linked.stderr).toBe(0);
    const consoleLink = [consoleAt![0], consoleAt![1], (JSON.parse(linked.stdout) as { url: string }).url];
    // Opening it shows the Sign in button; pressing it posts the token.
    const page = await fetch(consoleLink![2]!);
    expect([page.status, await page.text()]).toEqual([200, expect.stringContaining('<form method="post" action="/login">')]);
    const token = new URL(consoleLink![2]!).searchParams.get('token')!;
    const signIn = () => fetch(`${consoleLink![1]}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    const login = await signIn();
    expect([login.status, await login.json()]).toEqual([200, { signedIn: expect.any(String) }]);
    const status = await fetch(`${consoleLink![1]}/internal/trpc/system.status`, { headers: { cookie: login.headers.get('set-cookie')!.split(';')[0]! } });
    expect(status.status).toBe(200);
    expect(((await status.json()) as { result: { data: { projections: unknown[] } } }).result.data.projections.length).toBeGreaterThan(0);
    expect((await signIn()).status).toBe(401);
  });

  it('refuses a second server on the same data folder, naming the running one, which serves on', async () => {
    const second = await runCli(['serve'], { ...inDataDir(), PORT: String(await freePort()), SEQFLOW_DEMO: 'false' });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('Another seqflow serve (pid ');
    expect(second.stderr).toContain(`is using the data folder ${dataDir}`);
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);
  }, 90_000);

  it('shares its database with the CLI, which finds it through the data folder', async () => {
    const cli = await runCli(['org', 'create', '--slug', 'second', '--name', 'Second'], inDataDir());
    expect(cli.code).toBe(0);
    expect(cli.stderr).toContain(`embedded database in ${dataDir}`);
    const events = await runCli(['events', '--all'], inDataDir());
    expect(events.stdout).toContain('"slug":"demo"');
    expect(events.stdout).toContain('"slug":"second"');
  }, 90_000);

  it('stops on SIGTERM with its embedded PostgreSQL; started again, it finds the demo and says how to make a new key', async () => {
    server.stop();
    expect(await server.exited).toBe('closed');
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    for (let i = 0; i < 100 && existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(pidFile)).toBe(false);

    server = await npmStart(env);
    const again = server.stderr();
    expect(again).toContain('The demo organization exists already');
    expect(again).toContain('npx seqflow apikey create --org demo --project demo --env test');
    expect(again).toMatch(/curl -X POST -H 'Authorization: Bearer <key>' .* http:\/\/127\.0\.0\.1:\d+\/api\/v1\/seq\/demo\/demo\/hello\/execute/);
    server.stop();
    expect(await server.exited).toBe('closed');
  }, 120_000);
});
