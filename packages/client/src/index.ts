export { SeqflowClient, type CallOptions, type JobInput, type ListQuery, type SeqflowClientOptions } from './client.ts';
export { SeqflowError, isSeqflowError } from './errors.ts';
export type { ToolHandlers } from './toolCalls.ts';
export { verifyWebhook, type VerifyResult } from './verifyWebhook.ts';
export type * from './types.ts';
export type { components, paths, webhooks } from './openapi.ts';
