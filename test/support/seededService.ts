import type { FastifyInstance } from 'fastify';
import { type ScriptedModelServer, startScriptedModelServer } from './scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from './testRuntime.ts';

export interface SeededService {
  model: ScriptedModelServer;
  t: TestRuntime;
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>/api/v1` */
  base: string;
  /** A test API key of acme/web. */
  key: string;
  /** POST /seq/acme/web/{flow}/execute with the key: the status and the parsed body. */
  execute(flow: string, body: Record<string, unknown>): Promise<{ status: number; body: { executionId?: string; detail?: { code: string; message: string; executionId?: string } } }>;
  close(): Promise<void>;
}

/**
 * The API serving `flows` (acme/web, each in production) against the scripted model server, with
 * credits to spend and the model server's loopback address allowed.
 */
export async function startSeededService(label: string, flows: Record<string, unknown[]>, env: Record<string, string> = {}): Promise<SeededService> {
  const model = await startScriptedModelServer();
  const t = await createTestRuntime(label, { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000', ...env });
  const key = await seedProject(t.runtime, flows);
  await t.runtime.projections.catchUp();
  const { app, base } = await serveApi(t.runtime);
  return {
    model,
    t,
    app,
    base,
    key,
    async execute(flow, body) {
      const answer = await fetch(`${base}/seq/acme/web/${flow}/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: answer.status, body: (await answer.json()) as never };
    },
    async close() {
      await app.close();
      await t.close();
      await model.close();
    },
  };
}
