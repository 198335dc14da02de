import { type TemplateContext, renderTemplate, secretsNamedIn } from '../../templating/template.ts';
import type { HttpRequestTemplate } from './httpConfig.ts';

export interface RenderedRequest {
  method: HttpRequestTemplate['method'];
  url: string;
  headers: Record<string, string>;
  /** JSON text, or none. */
  body: string | undefined;
  /** Placeholders that rendered empty, for the step's start. */
  missing: string[];
}

/** The organization's secrets a request names, where they may be: its URL and its headers' values. */
export const secretsOfRequest = (template: HttpRequestTemplate): string[] => [...new Set([template.url, ...Object.values(template.headers ?? {})].flatMap(secretsNamedIn))];

/**
 * A request's templates filled in from the run's context: values put in the URL are
 * percent-encoded (a `+` or a `/` in an address stays in its segment), headers take them as they
 * are, and a body's strings take them as JSON strings. `secrets` (by name) fill the URL's and the
 * headers' `{{secrets.<name>}}`, never the body's. Answers a problem instead when the request
 * cannot be sent as rendered (a header value with a line break, a URL that no longer parses).
 */
export function renderRequest(template: HttpRequestTemplate, context: TemplateContext, secrets: Readonly<Record<string, string>> = {}): RenderedRequest | { problem: string } {
  const missing: string[] = [];
  const secret = (name: string) => (Object.prototype.hasOwnProperty.call(secrets, name) ? secrets[name] : undefined);
  const fill = (text: string, encode?: (value: string) => string, withSecrets?: typeof secret) => {
    const rendered = renderTemplate(text, context, encode, withSecrets);
    missing.push(...rendered.missing);
    return rendered.text;
  };
  const url = fill(template.url, encodeURIComponent, secret);
  if (!URL.canParse(url)) return { problem: 'the request URL does not parse once rendered' };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(template.headers ?? {})) {
    const rendered = fill(value, undefined, secret);
    if (/[\r\n\0]/.test(rendered)) return { problem: `the header ${name} holds a line break or NUL once rendered` };
    headers[name] = rendered;
  }
  const bodyOf = (value: unknown): unknown => (typeof value === 'string' ? fill(value) : Array.isArray(value) ? value.map(bodyOf) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, bodyOf(v)])) : value);
  const body = template.body === undefined ? undefined : JSON.stringify(bodyOf(template.body));
  return { method: template.method, url, headers, body, missing: [...new Set(missing)] };
}
