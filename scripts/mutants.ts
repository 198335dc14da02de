// `npm run test:simulate -- --mutants`: applies each one-line mutation of test/simulation/mutants.ts
// in a scratch copy of this checkout (the files git knows, with this node_modules linked in) and
// checks that the simulation and the named tests catch it; exits 1 naming each mutant that survived.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import { dirname, join } from 'node:path';
import { MUTANTS, type Mutant } from '../test/simulation/mutants.ts';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);

/** A copy of the checkout where one mutation can be applied without touching the working tree. */
function scratchCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'seqflow-mutant-'));
  for (const file of tracked) {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    try {
      cpSync(join(root, file), join(dir, file));
    } catch {
      // A file deleted in the working tree but still tracked: not needed.
    }
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** What running `command` in `cwd` printed. */
function run(cwd: string, command: string, args: string[]): string {
  const ran = spawnSync(command, args, { cwd, encoding: 'utf8', env: process.env, maxBuffer: 64 * 1024 * 1024 });
  return `${ran.stdout ?? ''}${ran.stderr ?? ''}`;
}

/**
 * Caught means a check failed, not that a command did: the simulation's report counts broken
 * invariants, vitest's summary failed tests or test files. A run that found no test file, or a
 * simulation that did not start, catches nothing (a typo in the list would otherwise pass).
 */
function simulationBreaks(cwd: string, seeds: number): boolean {
  const last = run(cwd, join(cwd, 'node_modules/.bin/tsx'), ['scripts/simulate.ts', '--seeds', String(seeds)]).trim().split('\n').at(-1) ?? '';
  try {
    const report = JSON.parse(last) as { engine: { broken: number }; deliveries: { broken: number } };
    return report.engine.broken + report.deliveries.broken > 0;
  } catch {
    return false;
  }
}

function testsFail(cwd: string, test: string): boolean {
  if (!existsSync(join(cwd, test))) throw new Error(`no test file ${test}: fix test/simulation/mutants.ts`);
  const output = stripVTControlCharacters(run(cwd, process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'direct', test]));
  return /Test Files\s+\d+ failed/.test(output) || /Tests:\s+\d+ passed, [1-9]\d* failed/.test(output);
}

function tryMutant(mutant: Mutant): { caught: boolean; by: string[] } {
  const dir = scratchCopy();
  try {
    const path = join(dir, mutant.file);
    const source = readFileSync(path, 'utf8');
    const at = source.indexOf(mutant.find);
    if (at < 0 || source.indexOf(mutant.find, at + 1) >= 0) throw new Error(`${mutant.name}: the line to mutate is not in ${mutant.file} exactly once (the code moved: update test/simulation/mutants.ts)`);
    writeFileSync(path, source.slice(0, at) + mutant.replace + source.slice(at + mutant.find.length));
    const by: string[] = [];
    if (mutant.seeds !== undefined && simulationBreaks(dir, mutant.seeds)) by.push(`the simulation (${mutant.seeds} seeds)`);
    for (const test of mutant.tests) if (testsFail(dir, test)) by.push(test);
    return { caught: by.length > 0, by };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const started = performance.now();
const survived: string[] = [];
for (const mutant of MUTANTS) {
  const { caught, by } = tryMutant(mutant);
  process.stdout.write(`${caught ? 'caught  ' : 'SURVIVED'} ${mutant.name}${caught ? `: by ${by.join(', ')}` : ''}\n`);
  if (!caught) survived.push(mutant.name);
}
process.stdout.write(`${JSON.stringify({ mutants: MUTANTS.length, caught: MUTANTS.length - survived.length, survived, seconds: Math.round((performance.now() - started) / 1000) })}\n`);
process.exitCode = survived.length > 0 ? 1 : 0;
