// Runs a flow three ways with the Seqflow client: synchronously, step by step, and as a job.
//
//   npm run build:client
//   SEQFLOW_API_KEY=sf_live_... node examples/run-flow.mjs "What is an event log?"
//
// SEQFLOW_URL (default http://127.0.0.1:8080), SEQFLOW_ORG / SEQFLOW_PROJECT / SEQFLOW_FLOW (default:
// the demo flow `npm start` creates). In your own project: `import { SeqflowClient } from '@seqflow/client'`.
import { randomUUID } from 'node:crypto';
import { SeqflowClient, isSeqflowError } from '../packages/client/dist/index.js';

const client = new SeqflowClient({
  baseUrl: process.env.SEQFLOW_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.SEQFLOW_API_KEY ?? '',
  org: process.env.SEQFLOW_ORG ?? 'demo',
  project: process.env.SEQFLOW_PROJECT ?? 'demo',
});
const flow = process.env.SEQFLOW_FLOW ?? 'hello';
const message = process.argv[2] ?? 'Hello';

try {
  const answer = await client.execute(flow, { message });
  console.log('execute:', JSON.stringify(answer.status === 'completed' ? answer.result : answer));

  for await (const event of client.step(flow, { message })) {
    console.log('step:', event.event, event.event === 'step_completed' ? event.data.blockName : '');
  }

  const job = await client.startJob(flow, { message }, { idempotencyKey: randomUUID() });
  const done = await client.waitForJob(flow, job.executionId, { pollIntervalMs: 200 });
  console.log('job:', done.status, JSON.stringify(done.result ?? done.errorMessage));
} catch (error) {
  if (!isSeqflowError(error)) throw error;
  console.error(`${error.code} (HTTP ${error.status}): ${error.message} [request ${error.requestId}]`);
  process.exitCode = 1;
}
