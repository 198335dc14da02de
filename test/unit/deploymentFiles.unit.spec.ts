import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Env, DockerfileParser } from 'dockerfile-ast';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dockerfile = DockerfileParser.parse(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
/** The runtime image's environment: every ENV of its last stage. */
const imageEnv = Object.fromEntries(
  dockerfile.getInstructions().filter((i) => i.getKeyword() === 'ENV').flatMap((i) => (i as Env).getProperties().map((p) => [p.getName(), p.getValue()])),
) as Record<string, string>;
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, { profiles?: string[]; command?: string[]; ports?: string[]; expose?: string[]; volumes?: string[]; environment?: Record<string, string>; depends_on?: Record<string, { required?: boolean }> }>;
  volumes: Record<string, unknown>;
};

/** The image and the compose file describe one deployment: what one says, the other must match. */
describe('the Docker image and the compose stack', () => {
  const seqflow = compose.services.seqflow!;

  it('runs PostgreSQL only by default, KurrentDB only with its profile', () => {
    expect(compose.services.postgres!.profiles).toBeUndefined();
    expect(compose.services.kurrentdb!.profiles).toEqual(['kurrentdb']);
    expect(seqflow.depends_on?.kurrentdb?.required).toBe(false);
    expect(seqflow.environment?.KURRENTDB_CONNECTION_STRING).toBe('${KURRENTDB_CONNECTION_STRING:-}');
  });

  it('keeps the data folder in a volume where the image puts it', () => {
    expect(seqflow.volumes).toContain(`seqflow-data:${imageEnv.SEQFLOW_DATA_DIR}`);
    expect(compose.volumes).toHaveProperty('seqflow-data');
  });

  it('publishes the API, the console on the host\'s loopback only, and exposes /metrics to the network, on the ports the image listens on', () => {
    expect(seqflow.ports).toEqual([`${imageEnv.PORT}:${imageEnv.PORT}`, `127.0.0.1:${imageEnv.SEQFLOW_CONSOLE_PORT}:${imageEnv.SEQFLOW_CONSOLE_PORT}`]);
    expect(seqflow.expose).toEqual([imageEnv.SEQFLOW_METRICS_PORT]);
    expect([imageEnv.HOST, imageEnv.SEQFLOW_CONSOLE_HOST, imageEnv.SEQFLOW_METRICS_HOST]).toEqual(['0.0.0.0', '0.0.0.0', '0.0.0.0']);
  });

  it('requires the master key and names the public URL clients reach', () => {
    expect(seqflow.environment?.SEQFLOW_MASTER_KEY).toMatch(/^\$\{SEQFLOW_MASTER_KEY:\?/);
    expect(seqflow.environment?.SEQFLOW_PUBLIC_URL).toBe(`\${SEQFLOW_PUBLIC_URL:-http://localhost:${imageEnv.PORT}}`);
  });

  it('runs more workers with their profile, each checked on its health port by the image\'s HEALTHCHECK', () => {
    const worker = compose.services['seqflow-worker']!;
    expect(worker.profiles).toEqual(['workers']);
    expect(worker.command).toEqual(['serve', '--role', 'worker']);
    expect(worker.expose).toContain(imageEnv.SEQFLOW_HEALTH_PORT);
    // The same database, key and log as the API process: one deployment.
    for (const name of ['DATABASE_URL', 'SEQFLOW_MASTER_KEY', 'KURRENTDB_CONNECTION_STRING']) expect(worker.environment?.[name]).toBe(seqflow.environment?.[name]);
    const healthcheck = dockerfile.getInstructions().find((i) => i.getKeyword() === 'HEALTHCHECK')!.getTextContent();
    expect(healthcheck).toContain('process.env.SEQFLOW_HEALTH_PORT');
    expect(healthcheck).toContain('process.env.PORT');
    expect(imageEnv.SEQFLOW_HEALTH_HOST).toBe('0.0.0.0');
  });
});
