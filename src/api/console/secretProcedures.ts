import { z } from 'zod';
import { deleteSecret, listSecrets, setSecret } from '../../commands/secretCommands.ts';
import { operatorProcedure, router } from './trpc.ts';

const id = z.string().min(1).max(200);
// Name and value are checked by the command (secretRules.ts), whose errors never quote a value.
const name = z.string().min(1).max(200);

/**
 * An organization's secrets in the console, as `seqflow secret set|list|delete` has them: names
 * and versions only; a value goes in once and is never answered back.
 */
export const secretProcedures = router({
  list: operatorProcedure.input(z.object({ organizationId: id })).query(({ ctx, input }) => listSecrets(ctx.services.commands, input.organizationId)),
  set: operatorProcedure
    .input(z.object({ organizationId: id, name, value: z.string().max(100_000) }))
    .mutation(({ ctx, input }) => setSecret(ctx.services.commands, input, ctx.services.masterKey, ctx.metadata)),
  delete: operatorProcedure.input(z.object({ organizationId: id, name })).mutation(({ ctx, input }) => deleteSecret(ctx.services.commands, input, ctx.metadata)),
});
