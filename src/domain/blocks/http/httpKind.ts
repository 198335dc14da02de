import { secretsNamedIn, stepsNamedIn } from '../../templating/template.ts';
import { type BlockKind, type BlockOf, inputView } from '../blockKind.ts';
import { httpConfigShape } from './httpConfig.ts';
import { secretsOfRequest } from './renderedRequest.ts';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the service sets itself (or the connection does): a block cannot. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'idempotency-key', 'upgrade', 'te', 'trailer']);
/** The URL's scheme and host written out: placeholders may follow the host, never make it. */
const LITERAL_ORIGIN = /^https?:\/\/[^/?#{}\s]+(?=[/?#]|$)/i;
const configKeys = Object.keys(httpConfigShape) as (keyof typeof httpConfigShape)[];

type HttpBlock = BlockOf<typeof httpConfigShape>;

/** Every template of the request: its URL, its headers' values, and the strings of its body. */
export function requestTemplates(block: HttpBlock): string[] {
  const request = block.processor_config?.request;
  if (!request) return [];
  return [request.url, ...Object.values(request.headers ?? {}), ...bodyTemplates(request.body)];
}

/** The strings of a request's body (each a template). */
const bodyTemplates = (value: unknown): string[] => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(bodyTemplates) : value && typeof value === 'object' ? Object.values(value).flatMap(bodyTemplates) : []);

/**
 * `http`: one request as a step (an addition to the spec's three processor types). Its response is
 * the step's output (JSON, or text), readable by name like any other. Run by
 * src/execution/blocks/httpRunner.ts: through the address guard, with a timeout, a capped response,
 * the one retry policy, and an Idempotency-Key on every request that is not a GET.
 */
export const httpKind: BlockKind<typeof httpConfigShape> = {
  fields: ['output_schema'],
  configShape: httpConfigShape,
  draftText: null,
  callsTools: false,
  receivesAttachments: () => false,
  fieldProblems(block, path) {
    const at = `${path}.processor_config`;
    const request = block.processor_config?.request;
    if (!request) return [`${at}.request: http blocks need a request (method and url)`];
    const problems: string[] = [];
    if (!LITERAL_ORIGIN.test(request.url)) problems.push(`${at}.request.url: must start with http:// or https:// and the host written out (placeholders may follow the host, never make it)`);
    else if (!URL.canParse(request.url.replace(/\{\{[^{}]*\}\}/g, 'x'))) problems.push(`${at}.request.url: not a URL`);
    if (request.method === 'GET' && request.body !== undefined) problems.push(`${at}.request.body: a GET request has no body`);
    // A body is recorded with the run (sealed, readable in its trace): a secret's place is a header or the URL.
    for (const name of new Set(bodyTemplates(request.body).flatMap(secretsNamedIn))) problems.push(`${at}.request.body: {{secrets.${name}}}: secrets go only in the request's URL and headers`);
    for (const name of Object.keys(request.headers ?? {})) {
      if (!HEADER_NAME.test(name)) problems.push(`${at}.request.headers.${name}: not a header name`);
      else if (RESERVED_HEADERS.has(name.toLowerCase())) problems.push(`${at}.request.headers.${name}: set by the service, not by a block`);
    }
    if (block.output_schema !== undefined && block.processor_config?.response_format === 'text') problems.push(`${path}.output_schema: a text response has no schema (response_format json)`);
    return problems;
  },
  foreignUse(block, path) {
    const used = configKeys.filter((key) => block.processor_config?.[key] !== undefined);
    return used.length > 0 ? [`${path}.processor_config: ${used.join(', ')}: only http blocks make requests`] : [];
  },
  contextProblems(block, path, { secrets }) {
    const request = block.processor_config?.request;
    if (!request || !secrets) return [];
    return secretsOfRequest(request)
      .filter((name) => !secrets.includes(name))
      .map((name) => `${path}.processor_config.request: {{secrets.${name}}}: the organization has no secret '${name}' (seqflow secret set --org <org> --name ${name})`);
  },
  references: (block) => ({ names: requestTemplates(block).flatMap(stepsNamedIn), all: false }),
  draftWarnings: (_block, _at, placeholders) => placeholders,
  stepView: inputView,
  mcpHints: {
    adding:
      'http blocks make one request: processor_config.request {method, url, headers, body} (templates like a prompt\'s; the URL\'s scheme and host written out), expect_status (default any 2xx), response_format (json, the default, or text), timeout_ms; the response is the step\'s output, and an output_schema checks it. Requests that are not GET carry an Idempotency-Key stable across retries.',
    editing: '',
  },
};
