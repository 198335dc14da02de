import { LRUCache } from 'lru-cache';
import type { ProviderAccount } from './providerAccount.ts';

/**
 * One SDK client per provider account, bounded; an owner whose key or base URL changed drops its
 * previous client at once (a rotated key is never used again).
 */
export function createClientCache<Client extends object>(make: (account: ProviderAccount) => Client) {
  const clients = new LRUCache<string, Client>({ max: 500 });
  const keyOfOwner = new LRUCache<string, string>({ max: 500 });
  return (account: ProviderAccount): Client => {
    const key = `${account.provider}\u0000${account.baseUrl ?? ''}\u0000${account.apiKey}`;
    // One owner may hold keys with several providers (OpenAI and compatible share this cache).
    const owner = `${account.provider}\u0000${account.owner}`;
    const previous = keyOfOwner.get(owner);
    if (previous !== undefined && previous !== key) clients.delete(previous);
    keyOfOwner.set(owner, key);
    let client = clients.get(key);
    if (!client) {
      client = make(account);
      clients.set(key, client);
    }
    return client;
  };
}
