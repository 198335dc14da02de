import type { RenderedRequest } from '../../domain/blocks/http/renderedRequest.ts';
import { type AttemptVerdict, judgeAttempt } from '../../domain/blocks/http/requestOutcome.ts';
import { RETRY_POLICIES } from '../../domain/retry/retryPolicy.ts';
import type { SecretRedaction } from '../../domain/secrets/secretRedaction.ts';
import { retrying } from '../../supervision/retrying.ts';
import type { RunSession } from '../runContext.ts';
import { type SentRequest, sendRequest } from './httpSend.ts';

/** An attempt that did not succeed: its verdict (how the retry policy takes it) and what it got. */
export class AttemptFailed extends Error {
  readonly verdict: Extract<AttemptVerdict, { ok: false }>;
  readonly sent: SentRequest;

  constructor(verdict: Extract<AttemptVerdict, { ok: false }>, sent: SentRequest) {
    super(verdict.message);
    this.verdict = verdict;
    this.sent = sent;
  }
}

/** Which step's request it is, and which server tool call of it (both null: the block's own request). */
export interface ExchangeRef {
  executionId: string;
  stepIndex: number;
  blockId: string;
  blockName: string;
  iteration: number | null;
  toolCallId: string | null;
  toolName: string | null;
}

export interface ExchangeOptions {
  idempotencyKey: string | null;
  timeoutMs: number;
  maxBytes: number;
  expectStatus: readonly number[] | undefined;
  redact: SecretRedaction;
  /** Milliseconds since the step began: where each attempt sits on the run's waterfall. */
  elapsed: () => number;
}

/**
 * One request, as an http block or a server tool sends it: through the address guard's fetch, by
 * the one retry policy (RETRY_POLICIES.httpRequest: 429, 5xx, 408, timeouts and resets tried
 * again), each attempt noted as an `HttpRequestAttempted` event with the secrets sent taken out of
 * its URL and excerpt. Answers the successful response with how many attempts it took; throws
 * AttemptFailed when the last attempt did not succeed.
 */
export async function exchange(session: RunSession, ref: ExchangeRef, rendered: RenderedRequest, options: ExchangeOptions): Promise<{ sent: SentRequest; attempts: number }> {
  const { deps, run } = session;
  let attempts = 0;
  const sent = await retrying({ policy: RETRY_POLICIES.httpRequest, classify: (error) => (error instanceof AttemptFailed ? error.verdict.class : 'terminal'), ...deps.retryWaits }, async (attempt) => {
    attempts = attempt;
    const startMs = options.elapsed();
    const raw = await sendRequest(deps.http.fetch, rendered, options.idempotencyKey, { timeoutMs: options.timeoutMs, maxBytes: options.maxBytes });
    // A server that echoes a header back, or an error that quotes the URL: no secret is kept.
    const answer = { ...raw, excerpt: raw.excerpt === null ? null : options.redact.text(raw.excerpt) };
    run.recorder.note({
      type: 'HttpRequestAttempted',
      data: { ...ref, attempt, method: rendered.method, url: options.redact.text(rendered.url), idempotencyKey: options.idempotencyKey, outcome: answer.outcome, status: answer.status, excerpt: answer.excerpt, startMs, durationMs: options.elapsed() - startMs },
    });
    const verdict = judgeAttempt(answer.outcome, answer.status, options.expectStatus);
    if (!verdict.ok) throw new AttemptFailed(verdict, answer);
    return answer;
  });
  return { sent, attempts };
}
