import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpsReceiver {
  /** `https://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  /** The receiver's self-signed certificate, for SEQFLOW_OUTBOUND_EXTRA_CA_FILE. */
  caFile: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** A fresh self-signed certificate (openssl) for 127.0.0.1 and localhost; `caFile` is for SEQFLOW_OUTBOUND_EXTRA_CA_FILE. */
export function selfSignedCertificate(): { key: Buffer; cert: Buffer; caFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'seqflow-tls-'));
  const caFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', caFile, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  return { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(caFile), caFile };
}

/**
 * A real HTTPS webhook receiver on loopback, with a fresh self-signed certificate (openssl) for
 * 127.0.0.1 and localhost. Every request is recorded with its whole body before `answer` runs.
 */
export async function startHttpsReceiver(answer: (request: ReceivedRequest, res: ServerResponse, req: IncomingMessage) => void): Promise<HttpsReceiver> {
  const { key, cert, caFile } = selfSignedCertificate();
  const received: ReceivedRequest[] = [];
  const server: Server = createServer({ key, cert }, (req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '', headers: req.headers, body };
      received.push(request);
      answer(request, res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `https://127.0.0.1:${(server.address() as { port: number }).port}`,
    caFile,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
