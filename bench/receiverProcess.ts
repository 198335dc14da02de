/**
 * The webhook receiver of the delivery bench, in a process of its own: an HTTPS server (the
 * certificate's paths come in argv) that answers 204 and notes when each execution's first request
 * arrived. Driven over IPC by deliveryBench.ts.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [keyFile, certFile] = process.argv.slice(2) as [string, string];
let arrivals = new Map<string, number>();
let received = 0;
let lastBodyBytes = 0;
const receiver = createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile), keepAliveTimeout: 30_000 }, (req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    received++;
    lastBodyBytes = Buffer.byteLength(body);
    const { executionId } = JSON.parse(body) as { executionId: string };
    if (!arrivals.has(executionId)) arrivals.set(executionId, Date.now());
    res.writeHead(204).end();
  });
});
receiver.listen(0, '127.0.0.1', () => process.send!({ type: 'ready', port: (receiver.address() as { port: number }).port }));

process.on('message', (message: { type: 'snapshot' | 'reset' | 'stop' }) => {
  if (message.type === 'stop') {
    receiver.closeAllConnections();
    receiver.close(() => process.exit(0));
  } else if (message.type === 'reset') {
    arrivals = new Map();
    received = 0;
    process.send!({ type: 'reset' });
  } else {
    process.send!({ type: 'snapshot', received, lastBodyBytes, arrivals: Object.fromEntries(arrivals) });
  }
});
