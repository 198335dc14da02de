import { z } from 'zod';
import { type TemplateContext, renderTemplate, valueOfPlaceholder } from './template.ts';

/** A JSON value whose strings are templates (`{{parameters.email}}`): a request's body, a sub-flow's parameters. */
export const templatedJson: z.ZodType<unknown> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(templatedJson), z.record(z.string(), templatedJson)]));

/** The strings of a templated JSON value (each a template). */
export const templatesIn = (value: unknown): string[] => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(templatesIn) : value && typeof value === 'object' ? Object.values(value).flatMap(templatesIn) : []);

const LONE_PLACEHOLDER = /^\{\{\s*([^{}]*?)\s*\}\}$/;

/**
 * A templated JSON value filled in, its values kept as they are: a string that is one placeholder
 * alone takes the value it names whatever its type (an object stays an object; absent reads null),
 * any other string is rendered as text. Placeholders that read nothing are added to `missing`.
 */
export function fillValues(value: unknown, context: TemplateContext, missing: string[]): unknown {
  if (typeof value === 'string') {
    const lone = LONE_PLACEHOLDER.exec(value);
    if (lone) {
      const found = valueOfPlaceholder(lone[1]!, context);
      if (found === undefined || found === null) missing.push(lone[1]!);
      return found ?? null;
    }
    const rendered = renderTemplate(value, context);
    missing.push(...rendered.missing);
    return rendered.text;
  }
  if (Array.isArray(value)) return value.map((item) => fillValues(item, context, missing));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillValues(item, context, missing)]));
  return value;
}
