import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { Outputs } from '../client.ts';
import { Problem } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { shortId } from '../format.ts';
import { hrefOf } from '../route.ts';

type Match = Outputs['runs']['search'][number];

/** A whole API key pasted: its secret never leaves the page (a query's input is in its URL, and URLs are logged); its id finds it. */
const withoutSecret = (text: string) => text.replace(/^([a-z]{2,8}_(?:live|test)_[a-f0-9]{24})_[a-f0-9]{64}$/, '$1');

/**
 * One box for what the on-call engineer has in hand: an execution id (from an answer, a log line or
 * a webhook), an Idempotency-Key a caller sent, or an API key. A single run found is opened; an API
 * key filters the list below by it; several matches are listed.
 */
export function RunSearch({ onApiKey }: { onApiKey: (apiKeyId: string) => void }) {
  const client = useClient();
  const [text, setText] = useState('');
  const search = useMutation({
    mutationFn: (query: string) => client.runs.search.query({ text: query }),
    onSuccess: (matches) => {
      const only = matches.length === 1 ? matches[0]! : undefined;
      if (only?.kind === 'run') window.location.hash = hrefOf({ view: 'run', executionId: only.executionId });
      if (only?.kind === 'apiKey') onApiKey(only.apiKeyId);
    },
  });
  const matches = search.data ?? [];
  return (
    <div className="run-search">
      <form
        className="run-lookup"
        aria-label="Find runs"
        onSubmit={(e) => {
          e.preventDefault();
          const query = withoutSecret(text.trim());
          setText(query);
          if (query) search.mutate(query);
        }}
      >
        <label>
          Find
          <input name="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="an execution id, an Idempotency-Key or an API key" />
        </label>
        <button type="submit" disabled={search.isPending}>
          Find
        </button>
      </form>
      {search.error ? <Problem error={search.error} /> : null}
      {search.isSuccess && matches.length === 0 ? <p className="empty">Nothing found for “{search.variables}”: no run has that execution id, no API key has that id, and no caller sent that Idempotency-Key.</p> : null}
      {matches.length > 1 ? (
        <ul className="search-matches">
          {matches.map((match) => (
            <li key={match.kind === 'run' ? `run:${match.executionId}` : `key:${match.apiKeyId}`}>
              <MatchLine match={match} onApiKey={onApiKey} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function MatchLine({ match, onApiKey }: { match: Match; onApiKey: (apiKeyId: string) => void }) {
  if (match.kind === 'apiKey') {
    return (
      <button type="button" className="link" onClick={() => onApiKey(match.apiKeyId)}>
        runs of API key {match.apiKeyId} ({match.environment}, {match.project}
        {match.revoked ? ', revoked' : ''})
      </button>
    );
  }
  return (
    <>
      <a href={hrefOf({ view: 'run', executionId: match.executionId })}>run {shortId(match.executionId)}</a>{' '}
      <small>
        {match.via === 'idempotencyKey' ? 'answered for this Idempotency-Key' : 'this execution id'}
        {match.project ? ` in ${match.project}` : ''}
      </small>
    </>
  );
}
