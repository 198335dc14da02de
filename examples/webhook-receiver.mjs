// A webhook receiver for /jobs callbacks: verifies each delivery's signature before acting on it,
// and acts once per delivery id (a retry of a delivery carries the same X-Service-Delivery).
//
//   npm run build:client
//   SEQFLOW_WEBHOOK_SECRETS=whsec_... PORT=3000 node examples/webhook-receiver.mjs
//
// SEQFLOW_WEBHOOK_SECRETS: the organization's signing secret (comma-separated: during a rotation,
// the new and the previous one). In production, serve it behind HTTPS: Seqflow calls https callback
// URLs. On your machine, start Seqflow with SEQFLOW_DEV_HTTP_CALLBACKS=true and
// SEQFLOW_OUTBOUND_ALLOW_CIDRS=127.0.0.0/8, and pass callbackUrl http://127.0.0.1:3000/ to /jobs.
import { createServer } from 'node:http';
import { verifyWebhook } from '../packages/client/dist/index.js';

const secrets = (process.env.SEQFLOW_WEBHOOK_SECRETS ?? '').split(',').filter(Boolean);
const seen = new Set(); // in production: your database, with a unique key on the delivery id

const server = createServer(async (request, response) => {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const rawBody = Buffer.concat(chunks); // verify the bytes as received, before JSON.parse
  const verdict = await verifyWebhook(rawBody, request.headers, secrets);
  if (!verdict.ok) {
    console.error(`refused: ${verdict.reason}`);
    return void response.writeHead(400).end(verdict.reason);
  }
  if (!seen.has(verdict.deliveryId)) {
    seen.add(verdict.deliveryId);
    const payload = JSON.parse(rawBody.toString('utf8'));
    console.log(`${payload.event} ${payload.executionId}: ${JSON.stringify(payload.result ?? payload.errorMessage)}`);
  }
  response.writeHead(200).end('ok'); // answer 2xx quickly: anything else is retried
});

server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
