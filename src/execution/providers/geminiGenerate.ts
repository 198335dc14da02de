import type { GenerateContentResponse, GoogleGenAI } from '@google/genai';
import type { ChatProvider, ProviderClientOptions } from './chatRequest.ts';
import { createClientCache } from './clientCache.ts';
import { chatCompletionOfGemini, geminiRequestOf, joinGeminiChunks } from './geminiTranslation.ts';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

/**
 * Google's Gemini API (generateContent, v1beta) through Google's own SDK (`@google/genai`): the chat
 * request translated there and back (geminiTranslation.ts). The key and base URL are given outright
 * and Vertex AI is off, so the SDK never reads a credential or GOOGLE_GENAI_USE_VERTEXAI from the
 * environment; its requests go through the guarded, capped fetch. Loaded when a model routed to Google is first called.
 */
export function createGeminiProvider(options: ProviderClientOptions): ChatProvider {
  const clientFor = createClientCache(async (account): Promise<GoogleGenAI> => {
    const { GoogleGenAI: Client } = await import('@google/genai');
    return new Client({
      vertexai: false,
      apiKey: account.apiKey,
      apiVersion: 'v1beta',
      httpOptions: {
        baseUrl: account.baseUrl ?? GEMINI_BASE_URL,
        timeout: options.timeoutMs,
        fetch: options.fetch as typeof fetch,
        ...(options.maxRetries > 0 ? { retryOptions: { attempts: options.maxRetries + 1 } } : {}),
      },
    });
  });
  return {
    baseUrl: (account) => account.baseUrl ?? GEMINI_BASE_URL,
    complete: async (request, account, onDelta) => {
      const client = await clientFor(account);
      if (!onDelta) return chatCompletionOfGemini(await client.models.generateContent(geminiRequestOf(request)), request.model);
      const chunks: GenerateContentResponse[] = [];
      for await (const chunk of await client.models.generateContentStream(geminiRequestOf(request))) {
        chunks.push(chunk);
        for (const part of chunk.candidates?.[0]?.content?.parts ?? []) if (part.text && !part.thought) onDelta(part.text);
      }
      return chatCompletionOfGemini(joinGeminiChunks(chunks), request.model);
    },
  };
}
