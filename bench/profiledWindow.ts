import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { measureMachineCpu } from './machineCpu.ts';
import { type CpuProfile, summarizeProfile } from './profileSummary.ts';
import { countQueries } from './queryCounter.ts';

/**
 * A measured window of this process for the profile scripts: the V8 CPU profiler (sampling every
 * 200 µs), the machine's CPU split and the SQL statements sent, all started together. `stop` ends
 * them, writes the profile to test-output/<name>.cpuprofile, and answers the figures per unit of
 * work (a run, a delivery).
 */
export async function startProfiledWindow() {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    const cpu = measureMachineCpu();
    const queries = countQueries();
    await session.post('Profiler.start');
    return {
      async stop(units: number, name: string) {
        const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
        const machine = cpu.stop(units);
        const statements = queries.stop(units);
        const out = path.resolve('test-output');
        mkdirSync(out, { recursive: true });
        writeFileSync(path.join(out, `${name}.cpuprofile`), JSON.stringify(profile));
        return { cpu: machine, statements, ...summarizeProfile(profile, units, process.cwd()) };
      },
      disconnect: () => session.disconnect(),
    };
  } catch (error) {
    session.disconnect();
    throw error;
  }
}
