import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';
import type { PauseData } from './pauseData.ts';
import { createTokenFeed } from './tokenFeed.ts';
import type { EventMetadata } from '../domain/events/eventMetadata.ts';
import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';

/**
 * In-process news about runs, for /step streams: a wake-up when a run's stream grew (readers then
 * read the log itself), and the latest pause's full data, which the log does not keep (it records
 * the conversation's digest only), and jobs just accepted, for a job runner in the same process
 * (with the event that accepted each, so that runner need not read it back from the log), and the
 * pieces of replies being written (tokenFeed.ts).
 * Readers in other processes poll the log instead. One per runtime, passed to the engine and the API.
 */
export function createExecutionUpdates() {
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  const jobs = new EventEmitter();
  // Bounded by size: a pause carries its whole conversation (up to the 1 MB the spec allows).
  const pauses = new LRUCache<string, PauseData>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (pause) => Math.max(1, JSON.stringify(pause).length) });
  // Bounded by size too: a request carries its input (up to the 2 MB a body may have). A job run
  // elsewhere, or not yet, is dropped when room is needed; its runner then reads the log.
  const acceptedJobs = new LRUCache<string, AcceptedJob>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (job) => Math.max(1, JSON.stringify(job.event.data).length) });

  return {
    notify: (executionId: string) => appended.emit(executionId),
    /** Calls `listener` at every append to the run's stream until the returned function is called. */
    onAppend(executionId: string, listener: () => void): () => void {
      appended.on(executionId, listener);
      return () => void appended.off(executionId, listener);
    },
    /** The replies being written, for /step readers (tokenFeed.ts). */
    tokens: createTokenFeed(),
    /**
     * A /jobs run was accepted in this process: a runner here may take it at once (the read model
     * comes later). Kept only where a runner listens: a process without one (the API role) keeps none.
     */
    jobAccepted(executionId: string, accepted: AcceptedJob) {
      if (jobs.listenerCount('accepted') === 0) return;
      acceptedJobs.set(executionId, accepted);
      jobs.emit('accepted', executionId);
    },
    /** The event that accepted a job here, once: its first runner's start (a takeover reads the log). */
    takeAcceptedJob(executionId: string): AcceptedJob | undefined {
      const accepted = acceptedJobs.get(executionId);
      acceptedJobs.delete(executionId);
      return accepted;
    },
    /** Listens for jobs accepted in this process; returns the way to stop listening. */
    onJobAccepted(listener: (executionId: string) => void): () => void {
      jobs.on('accepted', listener);
      return () => void jobs.off('accepted', listener);
    },
    rememberPause: (pause: PauseData) => void pauses.set(pause.executionId, pause),
    pause: (executionId: string) => pauses.get(executionId),
    /** Forgets the run's pause; given one, only if it is still that one. */
    forgetPause(executionId: string, pause?: PauseData) {
      if (pause === undefined || pauses.get(executionId) === pause) pauses.delete(executionId);
    },
  };
}

export type ExecutionUpdates = ReturnType<typeof createExecutionUpdates>;

/** A job's stream as its accepting process wrote it: `ExecutionRequested` at revision 0. */
export interface AcceptedJob {
  event: ExecutionEvent;
  metadata: EventMetadata;
}
