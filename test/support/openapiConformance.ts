import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components?: object;
}

/**
 * Checks answers against an OpenAPI 3.1 document: the schema documented for the route (its
 * template, e.g. `/api/v1/seq/{org}/{project}/{flow}/jobs`), method and status, with a JSON Schema
 * 2020-12 validator. An undocumented status is a failure too.
 */
export function openApiConformance(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const compiled = new Map<string, ValidateFunction>();
  const checked: string[] = [];

  return {
    /** Problems of one answer (empty when it conforms). */
    problems(method: string, template: string, status: number, body: unknown, contentType = 'application/json'): string[] {
      const operation = document.paths[template]?.[method.toLowerCase()];
      if (!operation) return [`${method} ${template} is not in the document`];
      const response = operation.responses[String(status)];
      if (!response) return [`${method} ${template} does not document status ${status} (documented: ${Object.keys(operation.responses).join(', ')})`];
      const media = response.content?.[contentType];
      if (!media) return [`${method} ${template} ${status} documents no ${contentType} body`];
      const key = `${method} ${template} ${status} ${contentType}`;
      let validate = compiled.get(key);
      if (!validate) {
        // `#/components/...` references resolve against the root: the document's components go along.
        validate = ajv.compile({ ...media.schema, components: document.components });
        compiled.set(key, validate);
      }
      checked.push(`${method} ${template} ${status}`);
      return validate(body) ? [] : (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || '(body)'} ${e.message ?? ''}`);
    },
    /** Problems of a value against one of the document's component schemas (e.g. a `/step` event against `StepEvent`). */
    problemsAgainst(component: string, value: unknown): string[] {
      let validate = compiled.get(`#${component}`);
      if (!validate) {
        validate = ajv.compile({ $ref: `#/components/schemas/${component}`, components: document.components });
        compiled.set(`#${component}`, validate);
      }
      return validate(value) ? [] : (validate.errors ?? []).map((e) => `${component}: ${e.instancePath || '(value)'} ${e.message ?? ''}`);
    },
    /** The route-and-status pairs checked so far. */
    checked: () => [...new Set(checked)],
  };
}
