import type { WaitingFor } from '../domain/execution/waitingFor.ts';

/** Ends the run's steps for now: an approval block waits for a decision (recorded already). */
export class WaitingForApproval extends Error {
  readonly waitingFor: WaitingFor;

  constructor(waitingFor: WaitingFor) {
    super('waiting for an approval');
    this.waitingFor = waitingFor;
  }
}
