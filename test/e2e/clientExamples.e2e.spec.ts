import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/domain/webhooks/webhookSignature.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { ROOT } from '../support/runProcess.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';

/** Output of a child process as it comes, and its end. */
function watch(child: ChildProcess) {
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const until = async (pattern: RegExp) => {
    for (let i = 0; i < 600 && !pattern.test(output); i++) await new Promise((r) => setTimeout(r, 50));
    return output.match(pattern);
  };
  return { output: () => output, exited, until };
}

describe('the examples/ scripts, run with the built client package', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;

  beforeAll(async () => {
    // What `npm run build` (and `npm ci`) does for the package.
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'packages/client'], { cwd: ROOT });
    t = await createTestRuntime('client-examples');
    key = await seedProject(t.runtime, { hello: [{ block: { name: 'a', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('run-flow.mjs executes, steps through and runs a job of a flow', async () => {
    const workers = await startWorkers(t.runtime);
    try {
      const child = spawn(process.execPath, ['examples/run-flow.mjs', 'hi there'], {
        cwd: ROOT,
        env: { ...process.env, SEQFLOW_URL: base.replace(/\/api\/v1$/, ''), SEQFLOW_API_KEY: key, SEQFLOW_ORG: 'acme', SEQFLOW_PROJECT: 'web', SEQFLOW_FLOW: 'hello' },
      });
      const run = watch(child);
      expect(await run.exited, run.output()).toBe(0);
      expect(run.output()).toContain('execute: {"text":"hi there"}');
      expect(run.output()).toContain('step: step_completed a');
      expect(run.output()).toContain('step: completed');
      expect(run.output()).toContain('job: completed {"text":"hi there"}');
    } finally {
      await workers.stop();
    }
  });

  it('webhook-receiver.mjs accepts a signed delivery once, and refuses a forged one', async () => {
    const child = spawn(process.execPath, ['examples/webhook-receiver.mjs'], { cwd: ROOT, env: { ...process.env, PORT: '0', SEQFLOW_WEBHOOK_SECRETS: 'whsec_old,whsec_new' } });
    const receiver = watch(child);
    try {
      const url = (await receiver.until(/listening on (\S+)/))?.[1];
      expect(url, receiver.output()).toBeDefined();
      const body = JSON.stringify({ event: 'flow.completed', deliveryId: 'd-1', executionId: 'run-1', result: { answer: 42 } });
      const send = (signature: string) =>
        fetch(url!, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'x-service-delivery': 'd-1', 'x-service-event': 'flow.completed' }, body });
      const now = Math.floor(Date.now() / 1000);
      expect((await send(signatureHeader(now, body, { current: 'whsec_new' }))).status).toBe(200);
      expect((await send(signatureHeader(now, body, { current: 'whsec_new' }))).status).toBe(200); // a retry: acted on once
      expect((await send(signatureHeader(now, body, { current: 'whsec_forged' }))).status).toBe(400);
      await receiver.until(/refused/);
      expect(receiver.output().match(/flow\.completed run-1: \{"answer":42\}/g)).toHaveLength(1);
      expect(receiver.output()).toContain('refused: no signature matches');
    } finally {
      child.kill();
      await receiver.exited;
    }
  });
});
