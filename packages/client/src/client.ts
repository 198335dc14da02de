import { errorOf } from './errors.ts';
import { type ToolHandlers, answerToolCalls } from './toolCalls.ts';
import { stepEvents } from './stepStream.ts';
import type { CompletedRun, ExecuteAnswer, Flow, Job, JobAccepted, JobPage, RunInput, RunPage, RunRequest, StepEvent, ToolCallsRequired } from './types.ts';

export interface SeqflowClientOptions {
  /** Where the service is, e.g. `https://seqflow.example.com` (the `/api/v1` prefix is added). */
  baseUrl: string;
  /** A project's API key (`sf_live_...`). */
  apiKey: string;
  /** The slugs of the key's organization and project. */
  org: string;
  project: string;
  /** Another fetch (a proxy's, a test's); the global one by default. */
  fetch?: typeof fetch;
}

/** Per call: an idempotency key (execute and jobs), your own request id, a signal to abort. */
export interface CallOptions {
  idempotencyKey?: string;
  requestId?: string;
  signal?: AbortSignal;
}

export type JobInput = RunInput & { callbackUrl?: string; callbackEvents?: ('flow.completed' | 'flow.failed')[] };
export type ListQuery = { status?: string[]; from?: string; to?: string; limit?: number; cursor?: string };

/**
 * Seqflow's REST API, typed from its OpenAPI document. Every method throws a `SeqflowError` (with
 * the answer's `code`, `status` and `requestId`) for an error answer; `execute` also for a failed run.
 */
export class SeqflowClient {
  readonly #options: SeqflowClientOptions;
  readonly #fetch: typeof fetch;
  /** The highest log position a write of this client was answered with: its polls and listings read after it (read replicas). */
  #position = 0;

  constructor(options: SeqflowClientOptions) {
    this.#options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  #flowUrl(flow: string, rest = '') {
    const { baseUrl, org, project } = this.#options;
    return `${baseUrl}/api/v1/seq/${encodeURIComponent(org)}/${encodeURIComponent(project)}/${encodeURIComponent(flow)}${rest}`;
  }

  async #send(method: string, url: string, body: unknown, options: CallOptions & { headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#options.apiKey}`, ...options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (options.requestId) headers['x-request-id'] = options.requestId;
    if (method === 'GET' && this.#position > 0) headers['seqflow-position'] = String(this.#position);
    const response = await this.#fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: options.signal });
    if (!response.ok) throw await errorOf(response);
    const position = Number(response.headers.get('seqflow-position') ?? 0);
    if (Number.isSafeInteger(position) && position > this.#position) this.#position = position;
    return response;
  }

  async #json<T>(method: string, url: string, body?: unknown, options?: CallOptions): Promise<T> {
    return (await (await this.#send(method, url, body, options)).json()) as T;
  }

  /** The flow and its production version. */
  getFlow(flow: string, options?: CallOptions): Promise<Flow> {
    return this.#json('GET', this.#flowUrl(flow), undefined, options);
  }

  /** Runs the flow's production version and answers when it completes or pauses for tool calls (a failed run throws). */
  execute(flow: string, input: RunRequest, options?: CallOptions): Promise<ExecuteAnswer> {
    return this.#json('POST', this.#flowUrl(flow, '/execute'), input, options);
  }

  /** Accepts a run for the background: poll it with `getJob` / `waitForJob`, or subscribe a webhook. */
  startJob(flow: string, input: JobInput, options?: CallOptions): Promise<JobAccepted> {
    return this.#json('POST', this.#flowUrl(flow, '/jobs'), input, options);
  }

  getJob(flow: string, executionId: string, options?: CallOptions): Promise<Job> {
    return this.#json('GET', this.#flowUrl(flow, `/jobs/${encodeURIComponent(executionId)}`), undefined, options);
  }

  /** Polls a job until it has completed or failed (both are answers, not errors: see `status`). */
  async waitForJob(flow: string, executionId: string, options: CallOptions & { pollIntervalMs?: number } = {}): Promise<Job> {
    for (;;) {
      // Each poll's request listens on a signal of its own, dropped with it: a long-lived signal collects no listeners.
      const poll = options.signal && typeof AbortSignal.any === 'function' ? { ...options, signal: AbortSignal.any([options.signal]) } : options;
      const job = await this.getJob(flow, executionId, poll);
      if (job.status === 'completed' || job.status === 'failed') return job;
      await pause(options.pollIntervalMs ?? 1000, options.signal);
    }
  }

  /** Cancels a job that has not ended: it fails with reason `cancelled`. */
  cancelJob(flow: string, executionId: string, reason?: string, options?: CallOptions): Promise<Job> {
    return this.#json('POST', this.#flowUrl(flow, `/jobs/${encodeURIComponent(executionId)}/cancel`), reason === undefined ? {} : { reason }, options);
  }

  listJobs(flow: string, query: ListQuery = {}, options?: CallOptions): Promise<JobPage> {
    return this.#json('GET', this.#flowUrl(flow, `/jobs${queryString(query)}`), undefined, options);
  }

  listRuns(flow: string, query: ListQuery & { mode?: string[] } = {}, options?: CallOptions): Promise<RunPage> {
    return this.#json('GET', this.#flowUrl(flow, `/runs${queryString(query)}`), undefined, options);
  }

  /**
   * Runs (or resumes) the flow step by step: its events as they happen, until it completes, fails or
   * pauses for tool calls; a dropped connection is resumed from the last event (`Last-Event-ID`).
   * `extended: true` asks for the events beyond the spec's too (`step_skipped`: a block whose `run_if` was not true).
   */
  async *step(flow: string, input: RunRequest, options: CallOptions & { maxReconnects?: number; extended?: boolean } = {}): AsyncGenerator<StepEvent> {
    const query = options.extended ? '?events=extended' : '';
    const first = await this.#send('POST', this.#flowUrl(flow, `/step${query}`), input, { ...options, headers: { accept: 'text/event-stream' } });
    const reconnect = (executionId: string, lastEventId: string | undefined) =>
      this.#send('GET', this.#flowUrl(flow, `/step/${encodeURIComponent(executionId)}${query}`), undefined, { ...options, headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } });
    yield* stepEvents(first, reconnect, { executionId: input.executionId, maxReconnects: options.maxReconnects });
  }

  /**
   * Runs the flow with `tools`, answering each pause by calling your functions (`handlers`, by tool
   * name; what they return is sent as the tool's result, JSON-encoded unless a string) and resuming,
   * until the run completes. With an idempotency key, each resume gets its own key derived from it.
   */
  async runWithTools(flow: string, input: RunInput & { tools: NonNullable<RunInput['tools']> }, handlers: ToolHandlers, options: CallOptions = {}): Promise<CompletedRun> {
    let answer = await this.execute(flow, input, options);
    for (let resume = 1; answer.status === 'tool_calls_required'; resume++) {
      const pause: ToolCallsRequired = answer;
      const results = await answerToolCalls(pause.toolCalls, handlers);
      answer = await this.execute(
        flow,
        { executionId: pause.executionId, pausedAtStep: pause.pausedAtStep, toolCallMessages: [...pause.toolCallMessages, ...results], tools: input.tools, ...(input.toolChoice === undefined ? {} : { toolChoice: input.toolChoice }) },
        { ...options, idempotencyKey: options.idempotencyKey && `${options.idempotencyKey}.resume-${resume}` },
      );
    }
    return answer;
  }
}

/** Waits `ms`, or fails at once with the signal's reason when it aborts; leaves no listener on the signal either way. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const aborted = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

function queryString(query: Record<string, string | number | string[] | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, Array.isArray(value) ? value.join(',') : String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
