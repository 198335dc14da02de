import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RunService } from '../../../runs/runService.ts';
import { parseQuery, parsePath } from '../queryParameters.ts';
import { callerOf } from '../restCaller.ts';
import type { ReadYourWrites } from '../readYourWrites.ts';
import { documented, flowParams } from '../openapi/routeDocs.ts';
import { jobPageSchema, runErasureSchema, runPageSchema } from '../openapi/responseSchemas.ts';
import { jobStatuses, runStatuses } from '../../../domain/execution/runStatus.ts';
import { FLOW_LOOKUP, LISTING, RUN_ERASED } from '../openapi/operationErrors.ts';
import { runModes } from '../../../domain/execution/executionEvents.ts';


/** `?status=a,b`: a comma-separated subset of `values`. */
const oneOrMore = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .string()
    .max(200)
    .transform((text) => text.split(','))
    .pipe(z.array(z.enum(values)));

const page = {
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(500).optional(),
};
const jobListing = z.strictObject({ status: oneOrMore(jobStatuses).optional(), ...page });
const runPath = flowParams.extend({ executionId: z.string().min(1).max(200) });
const eraseQuery = z.strictObject({ reason: z.string().min(1).max(1000).optional().meta({ description: 'Why: recorded with the erasure' }) });
const runListing = z.strictObject({
  status: oneOrMore(runStatuses).optional(),
  mode: oneOrMore(runModes).optional(),
  ...page,
});


/**
 * A flow's jobs and all of its runs (sync, /jobs, /step and test runs), newest first, with status
 * and time filters and an opaque keyset cursor (`nextCursor`, null on the last page). Both list the
 * read models (on a read replica where there are some), after the caller's own writes
 * (readYourWrites.ts): a run the caller started is listed.
 */
export function runListingRoutes(runs: Pick<RunService, 'listJobs' | 'listRuns' | 'eraseCallerRun'>, positions: Pick<ReadYourWrites, 'read'>) {
  return async (app: FastifyInstance) => {
    const jobs = documented({ operationId: 'listJobs', summary: "A flow's jobs, newest first", tags: ['Jobs'], params: flowParams, querystring: jobListing, response: { 200: jobPageSchema }, errors: [...FLOW_LOOKUP, ...LISTING] }, ['apiKey']);
    app.get('/seq/:org/:project/:flow/jobs', { schema: jobs }, async (request) => {
      const { status, from, to, limit, cursor } = parseQuery(jobListing, request.query);
      return positions.read(request, ['jobs'], () => runs.listJobs(callerOf(request), parsePath(flowParams, request.params), { status, from, to }, { limit, cursor }));
    });

    const runListed = documented({ operationId: 'listRuns', summary: "All of a flow's runs (sync, jobs, step, test), newest first", tags: ['Runs'], params: flowParams, querystring: runListing, response: { 200: runPageSchema }, errors: [...FLOW_LOOKUP, ...LISTING] }, ['apiKey']);
    app.get('/seq/:org/:project/:flow/runs', { schema: runListed }, async (request) => {
      const { status, mode, from, to, limit, cursor } = parseQuery(runListing, request.query);
      return positions.read(request, ['runs'], () => runs.listRuns(callerOf(request), parsePath(flowParams, request.params), { status, mode, from, to }, { limit, cursor }));
    });

    const erase = documented(
      {
        operationId: 'eraseRunData',
        summary: "Erase a run's personal data: its input, prompts, replies, tool calls and results, result and webhook bodies",
        description:
          "The run's data key is removed, so what it was sealed with reads as erased everywhere; what the run did (timeline, statuses, tokens, cost, hashes) stays and the log still verifies. Only a run that has ended; erasing again answers the first erasure. `reason` is recorded with it.",
        tags: ['Runs'],
        params: runPath,
        querystring: eraseQuery,
        response: { 200: runErasureSchema },
        errors: RUN_ERASED,
      },
      ['apiKey'],
    );
    app.delete('/seq/:org/:project/:flow/runs/:executionId/data', { schema: erase }, async (request) => {
      const { reason } = parseQuery(eraseQuery, request.query);
      return runs.eraseCallerRun(callerOf(request), { ...parsePath(runPath, request.params), reason });
    });
  };
}
