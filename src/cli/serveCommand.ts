import { buildServer } from '../api/rest/server.ts';
import type { Config } from '../config/config.ts';
import { seedDemo } from '../runtime/demoSeed.ts';
import { createLogger } from '../runtime/logger.ts';
import { openRuntime } from '../runtime/runtime.ts';
import { startWorkers } from '../workers/workerRole.ts';

export type Role = 'all' | 'api' | 'worker';

/** `seqflow serve`: the HTTP API, the workers, or both, until SIGINT/SIGTERM. */
export async function serve(config: Config, role: Role): Promise<void> {
  const logger = createLogger(config.logLevel);
  const runtime = await openRuntime(config, logger);
  const workers = role === 'api' ? undefined : await startWorkers(runtime);
  const app = role === 'worker' ? undefined : await buildServer(runtime);
  if (app) await app.listen({ host: config.host, port: config.port });

  if (app && config.demo) {
    const demo = await seedDemo(runtime);
    const address = app.server.address();
    const base = typeof address === 'object' && address ? `http://${config.host}:${address.port}` : `http://${config.host}:${config.port}`;
    if (demo) {
      process.stderr.write(
        [
          '',
          'Seqflow is running with a demo organization, project, API key and flow.',
          `The demo API key (shown only now): ${demo.apiKey}`,
          'Run the demo flow:',
          `  curl -X POST -H 'Authorization: Bearer ${demo.apiKey}' -H 'Content-Type: application/json' -d '{"message":"world"}' ${base}/api/v1/seq/${demo.org}/${demo.project}/${demo.flow}/execute`,
          'The essay-feedback example (needs OPENAI_API_KEY or OPENAI_BASE_URL):',
          `  curl -X POST -H 'Authorization: Bearer ${demo.apiKey}' -H 'Content-Type: application/json' -d '{"message":"Yesterday he go to school.","parameters":{"native_language":"Spanish"}}' ${base}/api/v1/seq/${demo.org}/${demo.project}/essay-feedback/execute`,
          `Health: curl ${base}/api/v1/health`,
          '',
        ].join('\n'),
      );
    }
  }
  logger.info({ role, database: runtime.database, eventLog: runtime.eventStore.kind }, 'seqflow started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app?.close();
    await workers?.stop();
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
