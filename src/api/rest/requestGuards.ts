import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from '../../domain/errors/apiError.ts';
import { unstorableInput } from '../../domain/validation/storableJson.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route applies the text rule to its body itself (refuseUnstorableArguments for MCP). */
    checksBodyText?: boolean;
  }
}

/**
 * What no caller input may carry past parsing: a NUL character or an unpaired UTF-16 surrogate in
 * any string or key (PostgreSQL cannot store them), nesting deeper than the log allows, or a number beyond the range of a double. Path
 * parameters (`%00` decodes to NUL), the query string and the JSON body are all checked before any
 * route handler runs, and refused with 400 naming the first offending path.
 */
export function installRequestGuards(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    // A route that answers such a body in its own protocol (MCP: a tool error) checks it itself.
    const body = request.routeOptions.config.checksBodyText ? undefined : request.body;
    for (const [root, value] of [['path', request.params], ['query', request.query], ['body', body]] as const) {
      const refusal = unstorableInput(value, root);
      if (refusal) throw refusal;
    }
  });
}

/**
 * The JSON body parser: secure-json-parse (as Fastify's own) refuses `__proto__` and
 * `constructor.prototype` keys, and every refusal says what was wrong with the body.
 */
export function installJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(new ApiError('INVALID_JSON', 'The body is empty; send a JSON object'), undefined);
    try {
      done(null, secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      const reason = /prototype/.test((error as Error).message) ? 'keys named __proto__ (or constructor.prototype) are not accepted' : (error as Error).message;
      done(new ApiError('INVALID_JSON', `The body is not valid JSON: ${reason}`), undefined);
    }
  });
}
