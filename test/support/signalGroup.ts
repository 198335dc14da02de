import type { ChildProcess } from 'node:child_process';

/**
 * Signals the process group a detached child leads, while that child has not been reaped. Once it
 * has, its pid (the group's id) is free: this machine hands out pids up to 32,768 and a test run
 * wraps them several times, so a late `kill(-pid)` could reach another group, such as another
 * test's PostgreSQL (detached too). A group whose leader has been reaped is not signalled.
 * Returns whether a signal was sent.
 */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false; // the group has no process left
  }
}
