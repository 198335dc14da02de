import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU time (ms) of every process named `postgres` (the server and its backends), from /proc. */
function postgresCpuMs(): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (name !== 'postgres') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks * TICK_MS;
}

/** The whole machine's busy CPU time (ms) from /proc/stat: everything but idle and iowait. */
function machineBusyMs(): number {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = values.map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  return (total - n[3]! - n[4]!) * TICK_MS;
}

/**
 * Who used the machine's CPU over a measured window, per run: this process (the service, its
 * sandbox workers included), the PostgreSQL server, and everything else (the load generator and
 * the scripted model server, the kernel's own work). Linux only; elsewhere, only this process.
 */
export function measureMachineCpu() {
  const linux = process.platform === 'linux';
  const before = { ours: process.cpuUsage(), postgres: linux ? postgresCpuMs() : 0, machine: linux ? machineBusyMs() : 0, at: performance.now() };
  return {
    stop(runs: number) {
      const used = process.cpuUsage(before.ours);
      const ours = (used.user + used.system) / 1000;
      const per = (ms: number) => Number((ms / runs).toFixed(3));
      if (!linux) return { serviceMsPerRun: per(ours) };
      const postgres = postgresCpuMs() - before.postgres;
      const machine = machineBusyMs() - before.machine;
      const wallMs = performance.now() - before.at;
      return {
        cores: cpus().length,
        machineBusyShare: Number((machine / (wallMs * cpus().length)).toFixed(2)),
        msPerRun: { service: per(ours), postgres: per(postgres), rest: per(Math.max(0, machine - ours - postgres)), machine: per(machine) },
      };
    },
  };
}
