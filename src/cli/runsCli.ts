import type { Command } from 'commander';
import { cliPrincipal, withRuntime } from './cliSupport.ts';

/** `seqflow runs trace|step`: what a run did, read from the log. */
export function registerRunCommands(program: Command) {
  const runs = program.command('runs').description('runs, read from the log');
  runs
    .command('trace')
    .description('a run: version, target, timings, tokens, status, steps with outputs, tool rounds, and for test runs the assertion results')
    .requiredOption('--execution <id>')
    .action((o: { execution: string }) => withRuntime(async (rt) => (await import('../testing/runTrace.ts')).runTrace(rt.eventStore, {}, o.execution), { catchUp: false }));
  runs
    .command('step')
    .description('one block of a run: rendered prompt, missing placeholders, input, output, model, usage, latency, attempts, tool rounds, error')
    .requiredOption('--execution <id>')
    .requiredOption('--step <step_id>')
    .action((o: { execution: string; step: string }) => withRuntime(async (rt) => (await import('../testing/runTrace.ts')).stepTrace(rt.eventStore, {}, o.execution, o.step), { catchUp: false }));
  runs
    .command('rerun')
    .description('run a recorded run again: same input, same version (never the latest by accident), linked to the original in both streams (rerunOf)')
    .requiredOption('--execution <id>')
    .action((o: { execution: string }) =>
      withRuntime(async (rt) => rt.runs.rerun(o.execution, cliPrincipal), { catchUp: false }),
    );
}
