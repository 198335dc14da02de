import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
};

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      databaseUrl: undefined,
      // The checkout's own .seqflow, whatever the working directory inside it.
      dataDir: fileURLToPath(new URL('../../.seqflow', import.meta.url)),
      kurrentDbConnectionString: undefined,
      host: '127.0.0.1',
      port: 8080,
      masterKey: undefined,
      oauth: undefined,
      outboundAllowCidrs: [],
      logLevel: 'info',
      demo: true,
      // Off the public port, on loopback; proxy headers not believed.
      metrics: { host: '127.0.0.1', port: 9464, explicit: false },
      trustProxy: false,
    });
  });

  it('takes a metrics port of the operator\'s, or off, and believes proxy headers only when told', () => {
    expect(loadConfig({ SEQFLOW_METRICS_PORT: '9100' }).metrics).toEqual({ host: '127.0.0.1', port: 9100, explicit: true });
    expect(loadConfig({ SEQFLOW_METRICS_PORT: 'off' }).metrics.port).toBe('off');
    expect(loadConfig({ SEQFLOW_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'not a url', SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64') }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://db/x' }, 'SEQFLOW_MASTER_KEY'],
    [{ SEQFLOW_MASTER_KEY: randomBytes(16).toString('base64') }, 'SEQFLOW_MASTER_KEY'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8,banana' }, 'SEQFLOW_OUTBOUND_ALLOW_CIDRS'],
    [{ KURRENTDB_CONNECTION_STRING: 'http://x' }, 'KURRENTDB_CONNECTION_STRING'],
    [{ OAUTH_AUDIENCE: 'seqflow' }, 'OAUTH_ISSUER'],
    [{ SEQFLOW_DEMO: 'maybe' }, 'SEQFLOW_DEMO'],
    [{ OPENAI_BASE_URL: 'localhost:11434/v1' }, 'OPENAI_BASE_URL'],
    [{ OPENAI_BASE_URL: 'api.openai.com/v1' }, 'OPENAI_BASE_URL'],
    [{ OPENAI_BASE_URL: 'ftp://models.example/v1' }, 'OPENAI_BASE_URL'],
    [{ SEQFLOW_SHUTDOWN_GRACE_MS: '-1' }, 'SEQFLOW_SHUTDOWN_GRACE_MS'],
    [{ SEQFLOW_CODE_MAX_OUTPUT_BYTES: '10' }, 'SEQFLOW_CODE_MAX_OUTPUT_BYTES'],
    [{ SEQFLOW_METRICS_PORT: 'public' }, 'SEQFLOW_METRICS_PORT'],
    [{ SEQFLOW_TRUST_PROXY: 'yes' }, 'SEQFLOW_TRUST_PROXY'],
  ])('names the variable of a bad value: %o', (env, variable) => {
    expect(problems(env)).toEqual([expect.stringMatching(new RegExp(`^${variable} `))]);
  });

  it('takes the server itself beside a pooled DATABASE_URL (PgBouncer), and refuses it alone', () => {
    const key = randomBytes(32).toString('base64');
    expect(loadConfig({ DATABASE_URL: 'postgres://u@bouncer:6432/seqflow', DATABASE_DIRECT_URL: 'postgres://u@db:5432/seqflow', SEQFLOW_MASTER_KEY: key }).databaseDirectUrl).toBe('postgres://u@db:5432/seqflow');
    expect(problems({ DATABASE_DIRECT_URL: 'postgres://u@db:5432/seqflow' })).toEqual(['DATABASE_DIRECT_URL needs DATABASE_URL (the pooled address, such as PgBouncer) beside it']);
  });

  it('says what an OPENAI_BASE_URL must look like', () => {
    expect(problems({ OPENAI_BASE_URL: 'localhost:11434/v1' })).toEqual(['OPENAI_BASE_URL must be an absolute http(s) URL, e.g. https://api.openai.com/v1']);
  });

  it('parses the optional settings', () => {
    const key = randomBytes(32);
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@db:5432/seqflow',
      SEQFLOW_MASTER_KEY: key.toString('base64'),
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8, ::1/128',
      OAUTH_ISSUER: 'https://auth.example.com/',
      OAUTH_AUDIENCE: 'seqflow',
      KURRENTDB_CONNECTION_STRING: 'kurrentdb://localhost:2113?tls=false',
    });
    expect(config.masterKey).toEqual(key);
    expect(config.outboundAllowCidrs).toEqual(['127.0.0.0/8', '::1/128']);
    expect(config.oauth).toEqual({ issuer: 'https://auth.example.com/', audience: 'seqflow', jwksUrl: undefined });
  });

  it('defaults the audience of OAuth tokens to the public URL, so a token minted for anything else is refused', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/seqflow', SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), OAUTH_ISSUER: 'https://auth.example.com/', SEQFLOW_PUBLIC_URL: 'https://seqflow.example.com' });
    expect(config.oauth).toEqual({ issuer: 'https://auth.example.com/', audience: 'https://seqflow.example.com', jwksUrl: undefined });
    expect(config.console.audience).toBe('https://seqflow.example.com');
  });
});
