/**
 * The image types Seqflow passes to models (spec section 2, Attachment): what a request's
 * attachments may be, and what a model's catalog entry may say it reads.
 */
export const IMAGE_MIME_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;
