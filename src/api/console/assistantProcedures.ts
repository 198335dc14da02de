import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { ConsoleSignIns } from '../oauth/consoleSignIns.ts';
import type { ConsoleContext } from './consoleContext.ts';
import { operatorProcedure, router } from './trpc.ts';

const id = z.string().min(1).max(2000);

/** The embedded authorization server's sign-ins, or a clear refusal where assistants sign in elsewhere. */
function signInsOf(ctx: ConsoleContext): ConsoleSignIns {
  if (!ctx.services.signIns) throw new TRPCError({ code: 'PRECONDITION_FAILED', message: 'Assistants sign in with the OAuth issuer this service is configured with (OAUTH_ISSUER): approve and end their sign-ins there' });
  return ctx.services.signIns;
}

/**
 * "Connect an assistant": a pending sign-in read by the request code its page shows, approved for
 * a member (the signed-in subject itself, when the console was opened with an OAuth token; a member
 * the operator names, when opened with a console link); and the registered assistants, listed and
 * ended (as `seqflow oauth clients|revoke`).
 */
export const assistantProcedures = router({
  request: operatorProcedure.input(z.object({ requestCode: z.string().min(1).max(40) })).query(({ ctx, input }) => signInsOf(ctx).pending(input.requestCode)),
  approve: operatorProcedure
    .input(z.object({ requestCode: z.string().min(1).max(40), subject: z.string().trim().min(1).max(200).optional() }))
    .mutation(({ ctx, input }) => {
      // A console link names an operator, not a member: the assistant must be told whom it acts as.
      const own = ctx.operator.id.startsWith('link:') ? undefined : ctx.operator.id;
      const subject = input.subject ?? own;
      if (!subject) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Name the member the assistant acts as (their subject)' });
      return signInsOf(ctx).approve({ requestCode: input.requestCode, subject }, ctx.metadata);
    }),
  clients: operatorProcedure.input(z.object({ organizationSlug: z.string().min(1).max(100).optional() }).default({})).query(({ ctx, input }) => signInsOf(ctx).clients(input.organizationSlug)),
  end: operatorProcedure.input(z.object({ clientId: id })).mutation(({ ctx, input }) => signInsOf(ctx).end(input.clientId, ctx.metadata)),
});
