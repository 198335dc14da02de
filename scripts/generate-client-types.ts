// `npm run client:types`: the server's OpenAPI document as the client package's snapshot
// (packages/client/openapi.json) and its types (packages/client/src/openapi.ts). The server runs
// on the configured database, or the embedded default.
import { writeFile } from 'node:fs/promises';
import pino from 'pino';
import { buildServer } from '../src/api/rest/server.ts';
import { loadConfig } from '../src/config/config.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { clientTypesFrom } from './clientTypes.ts';

const runtime = await openRuntime(loadConfig({ ...process.env, SEQFLOW_DEMO: 'false' }), pino({ level: 'warn' }));
try {
  const app = await buildServer(runtime);
  await app.ready();
  const document = app.swagger();
  await app.close();
  await writeFile(new URL('../packages/client/openapi.json', import.meta.url), `${JSON.stringify(document, null, 2)}\n`);
  await writeFile(new URL('../packages/client/src/openapi.ts', import.meta.url), await clientTypesFrom(document));
} finally {
  await runtime.close();
}
