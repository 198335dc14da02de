import type { ReactNode } from 'react';
import { problemOf } from './client.ts';
import type { LiveState } from './liveUpdates.ts';

/** A run's or delivery's state as a chip: the states a bare "running" would hide get their own colour. */
export function StatusChip({ status, detail }: { status: string; detail?: string | undefined }) {
  const label = status === 'paused' ? 'paused for tools' : status === 'waiting' ? 'waiting for approval' : status === 'dead_letter' ? 'dead-lettered' : status.replaceAll('_', ' ');
  return (
    <span className={`chip chip-${status}`} title={detail}>
      {label}
      {detail ? <small> {detail}</small> : null}
    </span>
  );
}

export function LiveMarker({ state }: { state: LiveState }) {
  return (
    <span className={`live live-${state}`} role="status" aria-live="polite">
      {state === 'live' ? '● live' : state === 'off' ? '○ not live' : '◌ connecting'}
    </span>
  );
}

export function Problem({ error }: { error: unknown }) {
  const { code, message } = problemOf(error);
  return (
    <div className="problem" role="alert">
      <strong>{code}</strong> {message}
    </div>
  );
}

export function Section({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="panel">
      <header className="panel-head">
        <h2>{title}</h2>
        <div className="actions">{actions}</div>
      </header>
      {children}
    </section>
  );
}

export function Json({ value }: { value: unknown }) {
  return <pre className="json">{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>;
}
