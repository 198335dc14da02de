import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseRunInput, runInputSchema } from '../../../runs/runInput.ts';
import type { RunService } from '../../../runs/runService.ts';
import { sendServerSentEvents } from '../executionEventStream.ts';
import { callerOf } from '../restCaller.ts';
import { parseQuery, parsePath } from '../queryParameters.ts';
import { documented, eventStream, flowParams, runHeaders } from '../openapi/routeDocs.ts';
import { RUN_LOOKUP, RUN_STARTED } from '../openapi/operationErrors.ts';

const executionPath = flowParams.extend({ executionId: z.string() });
/** `?events=extended`: the events beyond the spec's stream too (`step_skipped`); without it the stream is exactly the spec's. */
const eventsQuery = { events: z.enum(['extended']).optional().meta({ description: "extended: also send step_skipped events (blocks whose run_if was not true); without it, exactly the spec's events" }) };
const startQuery = z.strictObject(eventsQuery);
const followQuery = z.strictObject({ lastEventId: z.string().optional().meta({ description: 'As the Last-Event-ID header, for clients that cannot send it' }), ...eventsQuery });
const STEP_EVENTS =
  'Events: `started`, `step_started`, `step_completed`, `step_paused_for_tool_calls`, `step_waiting_for_approval` (a run at an approval block: an addition to the spec; the stream ends), `resumed`, `completed`, `failed`, and `token` (a piece of an llm block\'s reply while it is written; no id, not recorded: a client may ignore it); with `?events=extended`, also `step_skipped` (a block whose `run_if` was not true: its condition and the values it read); each `data` is a JSON object (the `StepEvent` schema, by event name) and each `id` the event\'s position in the run (send it back as `Last-Event-ID` to resume the stream); a `step_started` told by its block\'s completion event has the id half a revision before it (`4.5`, then `5`).';

/**
 * `POST /seq/{org}/{project}/{flow}/step` (same body as /execute, fresh or resume): every check first,
 * answered as JSON errors; then the run starts on its own and its events stream as SSE.
 * `GET /seq/{org}/{project}/{flow}/step/{executionId}` with `Last-Event-ID` (or `?lastEventId=`):
 * the events after that id from the log, then the live ones.
 */
export function stepRoutes(runs: Pick<RunService, 'startStep' | 'findRunToFollow' | 'follow'>, sseKeepAliveMs: number) {
  return async (app: FastifyInstance) => {
    const start = documented(
      { operationId: 'stepFlow', summary: 'Run (or resume) the production version, streaming its steps as server-sent events', tags: ['Runs'], params: flowParams, headers: runHeaders, querystring: startQuery, body: runInputSchema, response: { 200: eventStream(STEP_EVENTS) }, errors: RUN_STARTED },
      ['apiKey'],
    );
    app.post('/seq/:org/:project/:flow/step', { schema: start }, async (request, reply) => {
      const { events } = parseQuery(startQuery, request.query);
      const input = parseRunInput(request.body);
      // Nothing is streamed until the run has its first event: a run that cannot even start answers JSON.
      const run = await runs.startStep(callerOf(request), parsePath(flowParams, request.params), input);
      await sendServerSentEvents(request, reply, sseKeepAliveMs, (signal) => runs.follow(run, signal, { extended: events === 'extended' }));
    });

    const follow = documented(
      {
        operationId: 'followStep',
        summary: "A run's events again: those after `Last-Event-ID` from the log, then the live ones",
        tags: ['Runs'],
        params: executionPath,
        headers: runHeaders.extend({ 'last-event-id': z.string().optional().meta({ description: 'The id of the last event received' }) }),
        querystring: followQuery,
        response: { 200: eventStream(STEP_EVENTS) },
        errors: [...RUN_LOOKUP, 'VALIDATION_FAILED'],
      },
      ['apiKey'],
    );
    app.get('/seq/:org/:project/:flow/step/:executionId', { schema: follow }, async (request, reply) => {
      const query = parseQuery(followQuery, request.query);
      const lastEventId = request.headers['last-event-id'] ?? query.lastEventId;
      const run = await runs.findRunToFollow(callerOf(request), { ...parsePath(executionPath, request.params), lastEventId });
      await sendServerSentEvents(request, reply, sseKeepAliveMs, (signal) => runs.follow(run, signal, { extended: query.events === 'extended' }));
    });
  };
}

