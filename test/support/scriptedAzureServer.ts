import { refusalOf } from './openaiRequestRules.ts';
import { type ProviderDialect, type ScriptedModelServer, openaiDialect, startScriptedServer } from './scriptedModelServer.ts';

/** The Azure OpenAI data-plane API versions the scripted server takes (GA and the preview that followed it). */
export const AZURE_API_VERSIONS = ['2024-10-21', '2025-04-01-preview'];

/**
 * Azure OpenAI as the scripted servers speak it: chat completions at
 * `/openai/deployments/<deployment>/chat/completions?api-version=…` with the key in `api-key`,
 * answered as OpenAI answers. Refused as Azure refuses: no or an unknown api-version (404 "Resource
 * not found", as Azure answers a path it does not serve), no `api-key` (401), and every argument
 * the chat completions reference does not document (openaiRequestRules.ts: Azure refuses them alike).
 */
const azureDialect: ProviderDialect = {
  serves: (url) => /^\/openai\/deployments\/[^/?]+\/chat\/completions(\?|$)/.test(url),
  refusal: (recorded) => {
    const query = new URLSearchParams(recorded.url.split('?')[1] ?? '');
    if (!AZURE_API_VERSIONS.includes(query.get('api-version') ?? '')) return { status: 404, body: { error: { code: '404', message: 'Resource not found' } } };
    if (typeof recorded.headers['api-key'] !== 'string') return { status: 401, body: { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.' } } };
    const refusal = refusalOf(recorded.body);
    return refusal ? { status: 400, body: { error: { message: refusal, type: 'invalid_request_error', param: null, code: null } } } : undefined;
  },
  errorBody: openaiDialect.errorBody,
  reply: openaiDialect.reply,
  streams: openaiDialect.streams,
  stream: openaiDialect.stream,
};

/** A scripted Azure OpenAI resource on loopback; its `baseUrl` is what AZURE_OPENAI_ENDPOINT takes. */
export const startScriptedAzureServer = (): Promise<ScriptedModelServer> => startScriptedServer(azureDialect, '');
