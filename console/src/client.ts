import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink, TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { ConsoleRouter } from '../../src/api/console/consoleRouter.ts';

export type Outputs = inferRouterOutputs<ConsoleRouter>;
export type Inputs = inferRouterInputs<ConsoleRouter>;

/**
 * The page's only way to the service: the console router on this listener, with the session cookie
 * (same origin). Queries and mutations over plain HTTP; `events.live` over SSE (EventSource).
 */
export function createConsoleClient(url = '/internal/trpc') {
  return createTRPCClient<ConsoleRouter>({
    links: [splitLink({ condition: (op) => op.type === 'subscription', true: httpSubscriptionLink({ url }), false: httpLink({ url }) })],
  });
}

export type ConsoleClient = ReturnType<typeof createConsoleClient>;

/** The service's `{code, message}` of a failed call, when it sent one. */
export function problemOf(error: unknown): { code: string; message: string } {
  if (error instanceof TRPCClientError) {
    const detail = (error.data as { detail?: { code: string; message: string } | null } | undefined)?.detail;
    if (detail) return detail;
    const code = (error.data as { code?: string } | undefined)?.code ?? 'ERROR';
    return { code, message: error.message };
  }
  return { code: 'ERROR', message: error instanceof Error ? error.message : String(error) };
}

export const isSignedOut = (error: unknown) => error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === 'UNAUTHORIZED';
