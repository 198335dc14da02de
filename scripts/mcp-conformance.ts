/**
 * Runs the MCP conformance suite (@modelcontextprotocol/conformance, server mode) against the real
 * assistant endpoint: a runtime on a fresh PostgreSQL database, tokens from a loopback JWKS issuer.
 * The suite sends no Authorization header, so it talks to the endpoint through a loopback proxy that
 * adds a valid token and changes nothing else. The suite needs Node >= 22: it runs on the Node 24
 * the `node` dev dependency provides. `npm run conformance:mcp [-- --scenario NAME]`.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import path from 'node:path';
import { request } from 'undici';
import { addMember, createOrganization } from '../src/commands/organizationCommands.ts';
import { startJwksIssuer } from '../test/support/jwksIssuer.ts';
import { createTestRuntime, freePort, serveApi, testPrincipal } from '../test/support/testRuntime.ts';

/**
 * The suite's server scenarios that apply to a server of tools and two prompts. The two SSE scenarios end in a
 * warning, not a failure: the endpoint is stateless (no session id, so that any API process answers
 * any request), and a tools/call answers on its own POST's stream.
 * Left out, because they test what this endpoint does not offer: `logging-set-level` and
 * `tools-call-with-logging` (no logging capability), `completion-complete` and `resources-*` (no
 * resources or completions), `prompts-get-*`, `tools-call-*` and `json-schema-2020-12` (they ask for
 * the reference server's fixture prompts and tools, `test_simple_text` and the like), and the
 * `elicitation-*` and `tools-call-sampling` scenarios (this server never asks the client anything).
 */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'prompts-list', 'dns-rebinding-protection', 'server-sse-multiple-streams', 'server-sse-polling'];
const ROOT = path.resolve(import.meta.dirname, '..');

process.env.SEQFLOW_TEST_ADMIN_URL ??= process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const issuer = await startJwksIssuer();
const [port, proxyPort] = [await freePort(), await freePort()];
const origin = `http://127.0.0.1:${port}`;
const t = await createTestRuntime('mcp_conformance', {
  OAUTH_ISSUER: issuer.issuer,
  OAUTH_JWKS_URL: issuer.jwksUrl,
  // The issuer is on loopback: the outbound guard lets the service reach it only so.
  SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
  SEQFLOW_PUBLIC_URL: origin,
  // The suite sends the Origin of the URL it was given: the proxy's.
  SEQFLOW_MCP_ALLOWED_ORIGINS: `http://127.0.0.1:${proxyPort}`,
});
await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
await addMember(t.runtime.commands, { organizationSlug: 'acme', userSubject: 'conformance', role: 'member' }, testPrincipal);
await t.runtime.projections.catchUp();
const { app } = await serveApi(t.runtime, port);
const token = await issuer.sign({ sub: 'conformance', aud: `${origin}/api/v1/mcp/`, expiresIn: '1h' });

const proxy = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const { host: _host, ...headers } = req.headers;
  const upstream = await request(`${origin}${req.url}`, { method: req.method as 'POST', headers: { ...headers, authorization: `Bearer ${token}` }, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
  res.writeHead(upstream.statusCode, upstream.headers as Record<string, string>);
  for await (const chunk of upstream.body) res.write(chunk);
  res.end();
});
await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', () => resolve()));

const extra = process.argv.slice(2);
const args = extra.length > 0 ? extra : SCENARIOS.flatMap((scenario) => ['--scenario', scenario]);
let failed = false;
for (let i = 0; i < args.length; i += 2) {
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(path.join(ROOT, 'node_modules/node/bin/node'), [path.join(ROOT, 'node_modules/.bin/conformance'), 'server', '--url', `http://127.0.0.1:${proxyPort}/api/v1/mcp/`, args[i]!, args[i + 1]!], { stdio: 'inherit' });
    child.on('close', resolve);
  });
  failed ||= code !== 0;
}
proxy.close();
await app.close();
await t.close();
await issuer.close();
process.exit(failed ? 1 : 0);
