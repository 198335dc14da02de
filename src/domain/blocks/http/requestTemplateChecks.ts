import { secretsNamedIn } from '../../templating/template.ts';
import { templatesIn } from '../../templating/templatedJson.ts';
import type { HttpRequestTemplate } from './httpConfig.ts';
import { secretsOfRequest } from './renderedRequest.ts';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the service sets itself (or the connection does): a request template cannot. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'idempotency-key', 'upgrade', 'te', 'trailer']);
/** The URL's scheme and host written out: placeholders may follow the host, never make it. */
const LITERAL_ORIGIN = /^https?:\/\/[^/?#{}\s]+(?=[/?#]|$)/i;

/** Every template of a request: its URL, its headers' values, and the strings of its body. */
export const templatesOfRequest = (request: HttpRequestTemplate): string[] => [request.url, ...Object.values(request.headers ?? {}), ...templatesIn(request.body)];

/**
 * A request template's publish problems, each starting with `at` (the request's path): where it
 * goes is written out (a run's input never chooses the host), a GET has no body, the service's
 * own headers are not set, and a secret is never put in the body (recorded with the run).
 */
export function requestTemplateProblems(request: HttpRequestTemplate, at: string): string[] {
  const problems: string[] = [];
  if (!LITERAL_ORIGIN.test(request.url)) problems.push(`${at}.url: must start with http:// or https:// and the host written out (placeholders may follow the host, never make it)`);
  else if (!URL.canParse(request.url.replace(/\{\{[^{}]*\}\}/g, 'x'))) problems.push(`${at}.url: not a URL`);
  if (request.method === 'GET' && request.body !== undefined) problems.push(`${at}.body: a GET request has no body`);
  for (const name of new Set(templatesIn(request.body).flatMap(secretsNamedIn))) problems.push(`${at}.body: {{secrets.${name}}}: secrets go only in the request's URL and headers`);
  for (const name of Object.keys(request.headers ?? {})) {
    if (!HEADER_NAME.test(name)) problems.push(`${at}.headers.${name}: not a header name`);
    else if (RESERVED_HEADERS.has(name.toLowerCase())) problems.push(`${at}.headers.${name}: set by the service, not by a block`);
  }
  return problems;
}

/** The secrets a request names that the organization does not hold (`secrets`: its names). */
export const unknownSecretProblems = (request: HttpRequestTemplate, at: string, secrets: readonly string[]): string[] =>
  secretsOfRequest(request)
    .filter((name) => !secrets.includes(name))
    .map((name) => `${at}: {{secrets.${name}}}: the organization has no secret '${name}' (seqflow secret set --org <org> --name ${name})`);
