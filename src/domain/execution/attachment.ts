import { z } from 'zod';

/** Spec section 2, Attachment; shape only (the rules with their own error codes are in attachmentRules.ts). */
export const attachmentSchema = z.strictObject({
  kind: z.literal('url'),
  url: z.string(),
  mime_type: z.string(),
  filename: z.string().optional(),
});
export type Attachment = z.infer<typeof attachmentSchema>;

export const MAX_ATTACHMENTS = 10;
export const MAX_ATTACHMENT_URL_LENGTH = 2048;
export const MAX_ATTACHMENT_FILENAME_LENGTH = 255;
