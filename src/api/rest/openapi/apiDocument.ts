import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { createJsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { WEBHOOK_PAYLOAD_ID } from './responseSchemas.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/api/v1/docs';

/** Routes in the document: the REST API; not the assistant endpoint (MCP has its own discovery), OAuth, metrics or the document itself. */
const documented = (url: string) => url.startsWith('/api/v1/') && !url.startsWith('/api/v1/mcp') && url !== OPENAPI_PATH && !url.startsWith(DOCS_PATH);

/**
 * The OpenAPI 3.1 document (`@fastify/swagger`, from the routes' zod schemas through
 * `fastify-type-provider-zod`) at /api/v1/openapi.json, and its reference page (Scalar, served
 * from the package: no CDN, works offline) at /api/v1/docs. Register before the routes: the
 * document collects them as they are added.
 *
 * The schemas document; they do not validate here. Each handler validates its input itself with
 * the same zod schemas, because the spec fixes an error code per mistake (REQUEST_INVALID,
 * VALIDATION_FAILED, CALLBACK_URL_INVALID...) that a generic validator would not give; answers are
 * serialized as they are, and a test checks them against the document.
 */
export async function installApiDocument(app: FastifyInstance, version: string, publicUrl: string) {
  app.setValidatorCompiler(() => (value) => ({ value }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  const zodTransform = createJsonSchemaTransform({});
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Seqflow API',
        version,
        description: 'Run the production version of a flow synchronously (`/execute`), asynchronously (`/jobs`, polling and signed webhooks) or step by step (`/step`, server-sent events). Errors are `{detail: {code, message, requestId}}` with one status per code.',
      },
      // Where callers reach it (SEQFLOW_PUBLIC_URL): the reference page's examples and generated clients use it.
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: "A project's API key (`sf_live_...`)" },
          operatorToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: "An OAuth access token of an organization's member (webhook management)" },
        },
      },
      webhooks: webhookOperations(),
    },
    transform: (input) => (documented(input.url) ? zodTransform(input) : { schema: { hide: true }, url: input.url }),
    transformObject: jsonSchemaTransformObject,
  });
  app.get(OPENAPI_PATH, { logLevel: 'warn' }, async () => app.swagger());
  await app.register(scalar, { routePrefix: DOCS_PATH, configuration: {
      url: OPENAPI_PATH,
      pageTitle: 'Seqflow API reference',
      withDefaultFonts: false,
      // Nothing that leads to Scalar's cloud or its AI: the page is the document, served offline.
      hideClientButton: true,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
      telemetry: false,
    }, logLevel: 'warn' });
}

/** OpenAPI 3.1 `webhooks`: what a `/jobs` callback URL receives. */
function webhookOperations(): Record<string, OpenAPIV3_1.PathItemObject> {
  const operation = (event: string): OpenAPIV3_1.PathItemObject => ({
    post: {
      summary: `${event}: a /jobs run ended`,
      description:
        'Signed: `X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (and `v2` with the previous secret during a rotation grace window); `X-Service-Delivery` is the idempotency key, the same for every attempt. Answer 2xx within 20 s; a 408, 429, 5xx, network error or timeout is retried 1 min, 5 min, 30 min, 2 h and 12 h after each failure; 3xx and other 4xx are not.',
      // The payload's schema is among the components (its zod schema carries the id).
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${WEBHOOK_PAYLOAD_ID}` } } } },
      responses: { '200': { description: 'Received (any 2xx)' } },
    },
  });
  return { 'flow.completed': operation('flow.completed'), 'flow.failed': operation('flow.failed'), 'flow.waiting': { post: { ...operation('flow.waiting').post!, summary: 'flow.waiting: a /jobs run waits for an approval (only when callbackEvents names it)' } } };
}
