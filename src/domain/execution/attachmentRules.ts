import { ApiError } from '../errors/apiError.ts';
import { IMAGE_MIME_TYPES } from '../models/imageTypes.ts';
import {
  type Attachment,
  MAX_ATTACHMENTS,
  MAX_ATTACHMENT_FILENAME_LENGTH,
  MAX_ATTACHMENT_URL_LENGTH,
} from './attachment.ts';

/**
 * The attachment rules that need no network, in the spec's order: count, scheme, URL length, MIME
 * type, filename. Each rule is checked across all attachments before the next rule. The host check
 * (DNS) and the model check follow in the shell.
 */
const hasControlCharacter = (text: string) => [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

export function checkAttachmentsStatically(attachments: Attachment[]): void {
  if (attachments.length > MAX_ATTACHMENTS) {
    throw new ApiError('ATTACHMENT_LIMIT_EXCEEDED', `At most ${MAX_ATTACHMENTS} attachments per request (got ${attachments.length})`);
  }
  attachments.forEach((a, i) => {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(a.url.trim())?.[1]?.toLowerCase();
    if (scheme !== 'https') {
      const what = scheme === 'data' || scheme === 'blob' ? `${scheme}: URIs are not accepted` : 'only https URLs are accepted';
      throw new ApiError('ATTACHMENT_INVALID_SCHEME', `attachments[${i}].url: ${what}`, { index: i });
    }
  });
  attachments.forEach((a, i) => {
    if (a.url.length > MAX_ATTACHMENT_URL_LENGTH) {
      throw new ApiError('ATTACHMENT_URL_TOO_LONG', `attachments[${i}].url: longer than ${MAX_ATTACHMENT_URL_LENGTH} characters`, { index: i });
    }
    if (!URL.canParse(a.url)) throw new ApiError('ATTACHMENT_INVALID_SCHEME', `attachments[${i}].url: not a valid https URL`, { index: i });
  });
  attachments.forEach((a, i) => {
    if (!(IMAGE_MIME_TYPES as readonly string[]).includes(a.mime_type)) {
      throw new ApiError('ATTACHMENT_UNSUPPORTED_MIME', `attachments[${i}].mime_type: ${a.mime_type} is not one of ${IMAGE_MIME_TYPES.join(', ')}`, { index: i });
    }
  });
  attachments.forEach((a, i) => {
    const name = a.filename;
    if (name === undefined) return;
    if (name.length === 0 || name.length > MAX_ATTACHMENT_FILENAME_LENGTH || /[/\\]/.test(name) || name.includes('..') || hasControlCharacter(name)) {
      throw new ApiError(
        'ATTACHMENT_INVALID_FILENAME',
        `attachments[${i}].filename: 1-${MAX_ATTACHMENT_FILENAME_LENGTH} characters without '/', '\\\\', '..' or control characters`,
        { index: i },
      );
    }
  });
}
