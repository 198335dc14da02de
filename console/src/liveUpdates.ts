import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useClient } from './consoleContext.tsx';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'off';

/**
 * Keeps the views current: listens to `events.live` and, when events of the given kinds arrive,
 * refetches the named queries (at most every `everyMs`, so a burst of events is one refetch).
 * Answers the stream's state for the page's live marker.
 */
export function useLiveRefresh(queryKeys: string[][], eventPrefixes: string[], filter: { executionId?: string } = {}, everyMs = 500): LiveState {
  const client = useClient();
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');
  const keys = JSON.stringify(queryKeys);
  const prefixes = eventPrefixes.join(',');
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        for (const queryKey of JSON.parse(keys) as string[][]) void queryClient.invalidateQueries({ queryKey });
      }, everyMs);
    };
    const subscription = client.events.live.subscribe(filter.executionId ? { executionId: filter.executionId } : {}, {
      onStarted: () => setState('live'),
      onData: (event) => {
        if (prefixes.split(',').some((prefix) => event.data.type.startsWith(prefix))) refresh();
      },
      onConnectionStateChange: (change) => setState(change.state === 'pending' ? 'live' : change.state === 'connecting' ? 'reconnecting' : 'off'),
      onError: () => setState('off'),
    });
    return () => {
      if (timer) clearTimeout(timer);
      subscription.unsubscribe();
    };
  }, [client, queryClient, keys, prefixes, filter.executionId, everyMs]);
  return state;
}
