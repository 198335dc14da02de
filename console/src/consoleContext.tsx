import { createContext, useContext } from 'react';
import type { ConsoleClient } from './client.ts';

export const ClientContext = createContext<ConsoleClient | null>(null);

export function useClient(): ConsoleClient {
  const client = useContext(ClientContext);
  if (!client) throw new Error('useClient outside <ClientContext.Provider>');
  return client;
}
