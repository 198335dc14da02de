import { existsSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { openRuntime } from '../../src/runtime/runtime.ts';
import { createScratchDataFolder, removeScratchDataFolder } from '../support/scratchDataFolder.ts';

/**
 * The embedded PostgreSQL runs in a process group of its own (src/database/postgresProcess.ts), so
 * nothing but the runtime's close stops it: a close that gave up at its first failing step left it
 * running after the service had exited.
 */
describe('closing a runtime on its embedded PostgreSQL', () => {
  let dataDir: string | undefined;
  afterAll(async () => {
    if (dataDir) await removeScratchDataFolder(dataDir);
  }, 120_000);

  it('stops the embedded PostgreSQL even when a step before it fails to close, and logs that step', async () => {
    dataDir = await createScratchDataFolder('close');
    const lines: { msg: string; step?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string; step?: string }) });
    const runtime = await openRuntime(loadConfig({ ...process.env, DATABASE_URL: '', SEQFLOW_MASTER_KEY: '', SEQFLOW_DATA_DIR: dataDir, SEQFLOW_DEMO: 'false' }), logger);
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    expect(existsSync(pidFile)).toBe(true);

    // A step that fails to close: its tracing exporter cannot flush (as when its collector has gone).
    runtime.tracing.close = () => Promise.reject(new Error('the collector is unreachable'));
    await runtime.close();

    expect(existsSync(pidFile)).toBe(false);
    expect(lines).toContainEqual(expect.objectContaining({ step: 'tracing', msg: 'could not close tracing; closing the rest' }));
  }, 120_000);
});
