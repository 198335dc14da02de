import { stepsNamedIn } from '../../templating/template.ts';
import { type BlockKind, type BlockOf, inputView } from '../blockKind.ts';
import { httpConfigShape } from './httpConfig.ts';
import { requestTemplateProblems, templatesOfRequest, unknownSecretProblems } from './requestTemplateChecks.ts';

const configKeys = Object.keys(httpConfigShape) as (keyof typeof httpConfigShape)[];

type HttpBlock = BlockOf<typeof httpConfigShape>;

/** Every template of the block's request. */
export const requestTemplates = (block: HttpBlock): string[] => (block.processor_config?.request ? templatesOfRequest(block.processor_config.request) : []);

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
  standsAlone: false,
  receivesAttachments: () => false,
  fieldProblems(block, path) {
    const at = `${path}.processor_config`;
    const request = block.processor_config?.request;
    if (!request) return [`${at}.request: http blocks need a request (method and url)`];
    const problems = requestTemplateProblems(request, `${at}.request`);
    if (block.output_schema !== undefined && block.processor_config?.response_format === 'text') problems.push(`${path}.output_schema: a text response has no schema (response_format json)`);
    return problems;
  },
  foreignUse(block, path) {
    const used = configKeys.filter((key) => block.processor_config?.[key] !== undefined);
    return used.length > 0 ? [`${path}.processor_config: ${used.join(', ')}: only http blocks make requests`] : [];
  },
  contextProblems(block, path, { secrets }) {
    const request = block.processor_config?.request;
    return request && secrets ? unknownSecretProblems(request, `${path}.processor_config.request`, secrets) : [];
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
