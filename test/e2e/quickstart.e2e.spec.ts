import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { freePort } from '../support/testRuntime.ts';
import { ROOT } from '../support/runProcess.ts';
import { createScratchDataFolder, removeScratchDataFolder } from '../support/scratchDataFolder.ts';
import { until } from '../support/until.ts';

/** The README's quickstart: its shell blocks, in order. */
function quickstartBlocks(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quickstart'), readme.indexOf('\n## ', readme.indexOf('## Quickstart') + 1));
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
}

/** A process group started with `command`, its output collected. */
function start(command: string, args: string[], env: NodeJS.ProcessEnv) {
  const child: ChildProcess = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // The whole group, even after its leader has exited: the session leaves the README's receiver
  // running in the background, and while it runs it keeps the group's id (so no other group has it).
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  return { output, exited, stop };
}

/**
 * The quickstart as written, against a fresh `npm start` (embedded PostgreSQL, a scratch data
 * folder) whose model is the scripted server: the same start command with OPENAI_BASE_URL added,
 * then every later block as one shell session, the addresses swapped for free ports.
 */
describe('the README quickstart, run as written', () => {
  let model: ScriptedModelServer;
  let dataDir: string;
  let server: ReturnType<typeof start>;
  let port: number;
  const files = ['review.flow.json', 'review-v2.flow.json', 'good-essay.case.json'].map((f) => path.join(ROOT, f));

  beforeAll(async () => {
    model = await startScriptedModelServer();
    model.respond = () => ({ content: { score: 8, why: 'A clear claim, well supported.' } });
    dataDir = await createScratchDataFolder('quickstart');
    port = await freePort();
  });
  afterAll(async () => {
    server?.stop();
    await model?.close();
    for (const file of files) rmSync(file, { force: true });
    if (dataDir) await removeScratchDataFolder(dataDir);
  });

  it('gets from npm start to the own flow answering /execute, a signed webhook and /step, with a test case, a promotion, and a backtest before the next one', async () => {
    const [startBlock, ...rest] = quickstartBlocks();
    expect(rest.length).toBeGreaterThanOrEqual(7);
    // The start command as the README gives it, plus the model server and a scratch folder and port.
    const startLine = startBlock!.split('\n').find((line) => line.endsWith('npm start'))!;
    const settings = Object.fromEntries([...startLine.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
    expect(Object.keys(settings)).toEqual(['OPENAI_API_KEY', 'SEQFLOW_DEV_HTTP_CALLBACKS', 'SEQFLOW_OUTBOUND_ALLOW_CIDRS']);
    const inDataDir = { SEQFLOW_DATA_DIR: dataDir, DATABASE_URL: '', SEQFLOW_MASTER_KEY: '' };
    server = start('npm', ['start'], { ...process.env, ...settings, ...inDataDir, OPENAI_BASE_URL: model.baseUrl, PORT: String(port), SEQFLOW_CONSOLE_PORT: '0', SEQFLOW_METRICS_PORT: '0', LOG_LEVEL: 'warn' });
    await until(() => server.output.stderr.includes('Health:'), 'npm start to print its banner', 120_000);

    const receiverPort = await freePort();
    const script = rest.join('\n').replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`).replaceAll('PORT=3000', `PORT=${receiverPort}`).replaceAll('127.0.0.1:3000', `127.0.0.1:${receiverPort}`);
    const started = performance.now();
    // The second terminal's CLI runs the test case itself: it reaches the same model server.
    const session = start('bash', ['-e', '-o', 'pipefail', '-c', script], { ...process.env, ...inDataDir, OPENAI_BASE_URL: model.baseUrl, SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', LOG_LEVEL: 'warn' });
    try {
      // The receiver, left running in the background, prints the delivery it verified.
      // Every command has run (the shell ended: /step's stream too), and the webhook came.
      let ended: number | null | undefined;
      void session.exited.then((code) => (ended = code));
      await until(() => ended !== undefined && session.output.stdout.includes('flow.completed'), "the quickstart's commands, and its job's webhook", 180_000).catch((error: Error) => {
        throw new Error(`${error.message}\nstdout: ${session.output.stdout.slice(-3000)}\nstderr: ${session.output.stderr.slice(-3000)}`);
      });
      expect(ended).toBe(0);
      const out = session.output.stdout;
      // 2: imported and published; 3: the test passed, and version 1 was promoted; 4: /execute answered; 6: /step streamed the result.
      expect(out).toMatch(/"slug":"review","versionId":"[0-9a-f-]{36}"/);
      expect(out).toMatch(/"passed":\s*true/);
      expect(out).toContain('"status":"completed","result":{"score":8,"why":"A clear claim, well supported.","passed":true}');
      expect(out).toContain('event: completed');
      expect(out).toMatch(/flow\.completed [0-9a-f-]{36}: \{.*"score":8.*"passed":true/);
      // 7: the backtest replayed the production runs recorded so far on version 2 (the model answering as before: every answer the same), and version 2 was promoted.
      const backtest = out.split('\n').find((line) => line.startsWith('{"backtestId"'));
      expect(backtest, out.slice(-3000)).toBeDefined();
      const report = JSON.parse(backtest!) as { target: unknown; summary: { total: number; same: number } };
      expect(report.target).toEqual({ kind: 'version', number: 2 });
      expect(report.summary.total).toBeGreaterThanOrEqual(2);
      expect(report.summary.same).toBe(report.summary.total);
      expect(out).toMatch(/"versionId":"[0-9a-f-]{36}","number":2/);
      // The model got the flow's system prompt and settings: version 1's, then version 2's.
      const systemPrompts = model.requests.map((r) => r.body.messages[0]?.content);
      expect(systemPrompts).toContain('You are a strict but fair writing teacher.');
      expect(model.requests.at(-1)!.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.2, messages: [{ role: 'system', content: 'You are a fair and encouraging writing teacher.' }, { role: 'user' }] });
      process.stderr.write(`quickstart: ${Math.round(performance.now() - started)} ms from the first command after npm start to the webhook\n`);
    } finally {
      session.stop();
    }
  }, 300_000);
});
