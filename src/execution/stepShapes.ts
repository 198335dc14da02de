import type { StoredBlock, StoredSwitch } from '../domain/flows/flowDefinition.ts';
import { blocksOfStep } from '../domain/flows/flowDefinition.ts';
import { setOwn } from '../domain/ownProperty.ts';
import { type TemplateContext, lookupPath } from '../domain/templating/template.ts';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { BlockFailure } from './processors/blockFailure.ts';
import { type RunSession, blockKey } from './runContext.ts';

/** How a step shape runs one of its blocks (runSteps.ts: a taken-over run's completed block answers its recorded output). */
export type BlockRun = (session: RunSession, block: StoredBlock, context: TemplateContext, stepIndex: number, iteration: number | null, conversation?: ChatCompletionMessageParam[], endsRun?: boolean) => Promise<unknown>;

/** Items of a loop step run this many at a time; their results keep the items' order. */
const LOOP_CONCURRENCY = 4;

/**
 * Decides a condition (`run_if`, a switch case, a while loop's) on the run's context as the step
 * sees it; one that cannot be decided fails the run (RUN_IF_FAILED) at `blockName`.
 */
async function decide(session: RunSession, condition: string, context: TemplateContext, stepIndex: number, blockName: string) {
  const outcome = await session.deps.conditions.decide(condition, {
    input: { message: context.message ?? null, parameters: context.parameters },
    steps: Object.fromEntries(Object.entries(context.steps).map(([name, output]) => [name, { output }])),
    previous_output: context.previous_output ?? null,
  });
  if (!outcome.ok) throw Object.assign(new BlockFailure('RUN_IF_FAILED', outcome.message, { detail: outcome.detail ?? null }), { stepIndex, blockName });
  return outcome;
}

/** A block that did not run, recorded once (a taken-over run decides again, and finds it recorded), reading as null from then on. */
function noteSkipped(session: RunSession, block: StoredBlock, stepIndex: number, condition: string, values: Record<string, unknown>, branch: { chosen: string | null; evaluated: boolean } | null) {
  const { run } = session;
  setOwn(run.accumulated, block.name, null);
  if (run.completed?.has(blockKey(stepIndex, block.name, null))) return;
  run.recorder.note({ type: 'ExecutionStepSkipped', data: { executionId: run.executionId, stepIndex, blockId: block.id, blockName: block.name, iteration: null, condition, values, branch } });
}

/**
 * Whether a step's condition skips its blocks: when it does, each is recorded skipped (with what the
 * condition read) and reads as null from then on. A condition that cannot be decided fails the run
 * (RUN_IF_FAILED) at the step's first block. A taken-over run decides again on the same outputs,
 * and a block it already recorded skipped is not recorded twice.
 */
export async function skippedByCondition(session: RunSession, condition: string | undefined, context: TemplateContext, stepIndex: number, blocks: readonly StoredBlock[]): Promise<boolean> {
  if (condition === undefined) return false;
  const outcome = await decide(session, condition, context, stepIndex, blocks[0]!.name);
  if (outcome.run) return false;
  for (const block of blocks) noteSkipped(session, block, stepIndex, condition, outcome.values, null);
  return true;
}

/** A loop step: the block once per item of the array at `over`, a few at a time, results in the items' order. */
export async function runLoop(session: RunSession, loop: { over: string; block: StoredBlock }, context: TemplateContext, stepIndex: number, runBlock: BlockRun) {
  const { loopMaxItems } = session.deps.settings;
  const [root, ...path] = loop.over.split('.');
  const items = lookupPath(root === 'parameters' ? context.parameters : context.previous_output, path);
  if (!Array.isArray(items)) {
    throw Object.assign(new BlockFailure('LOOP_INPUT_INVALID', `loop over ${loop.over}: expected an array, found ${items === undefined ? 'nothing' : typeof items}`), { stepIndex, blockName: loop.block.name });
  }
  if (items.length > loopMaxItems) {
    throw Object.assign(new BlockFailure('LOOP_LIMIT_EXCEEDED', `loop over ${loop.over}: ${items.length} items, at most ${loopMaxItems}`), { stepIndex, blockName: loop.block.name });
  }
  const results: unknown[] = new Array(items.length);
  let next = 0;
  let failed = false;
  await settleAll(
    Array.from({ length: Math.min(LOOP_CONCURRENCY, items.length) }, async () => {
      while (next < items.length && !failed) {
        const index = next++;
        try {
          results[index] = await runBlock(session, loop.block, { ...context, previous_output: items[index] }, stepIndex, index);
        } catch (error) {
          failed = true; // no new items start; those in flight finish
          throw error;
        }
      }
    }),
  );
  return results;
}

/**
 * A while loop (an addition to the spec): the block again and again, one iteration after another,
 * while the condition holds on the run's context with `previous_output` the last iteration's
 * output (the step's input before the first), at most `max_iterations` times. Its output is the
 * iterations' results in order, as a loop's is (empty when the condition is false at once); a
 * taken-over run decides again on the recorded outputs, so it stops where the first run did.
 */
export async function runWhileLoop(session: RunSession, loop: { while: string; max_iterations: number; block: StoredBlock }, context: TemplateContext, stepIndex: number, runBlock: BlockRun) {
  const results: unknown[] = [];
  let last = context.previous_output;
  for (let iteration = 0; iteration < loop.max_iterations; iteration++) {
    const around = { ...context, previous_output: last };
    if (!(await decide(session, loop.while, around, stepIndex, loop.block.name)).run) break;
    last = await runBlock(session, loop.block, around, stepIndex, iteration);
    results.push(last);
  }
  return results;
}

/**
 * A switch step (an addition to the spec): its cases' conditions decided in order until one holds;
 * that case's block runs (or the default's, when none holds; or none). Every other block is
 * recorded skipped with its condition and what it read: a case found false with its values, a case
 * after the chosen one (not evaluated) and an unchosen default with none. The step's output is the
 * chosen block's (null when none ran).
 */
export async function runSwitch(session: RunSession, step: StoredSwitch, context: TemplateContext, stepIndex: number, runBlock: BlockRun, conversation: ChatCompletionMessageParam[] | undefined, endsRun: boolean) {
  const read = new Map<string, Record<string, unknown>>();
  let chosen: StoredBlock | undefined;
  for (const { when, block } of step.cases) {
    const outcome = await decide(session, when, context, stepIndex, block.name);
    read.set(block.name, outcome.values);
    if (outcome.run) {
      chosen = block;
      break;
    }
  }
  chosen ??= step.default;
  const conditionOf = new Map(step.cases.map((c) => [c.block.name, c.when]));
  for (const block of blocksOfStep({ switch: step })) {
    if (block === chosen) continue;
    noteSkipped(session, block, stepIndex, conditionOf.get(block.name) ?? 'default', read.get(block.name) ?? {}, { chosen: chosen?.name ?? null, evaluated: read.has(block.name) });
  }
  return chosen ? runBlock(session, chosen, context, stepIndex, null, conversation, endsRun) : null;
}

/** Like Promise.all, but waits for every promise before throwing the first failure. */
export async function settleAll<T>(promises: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
