import { type ProcessorType, processorTypes } from '../domain/blocks/blockKinds.ts';
import { type Command, Option } from 'commander';
import { ApiError } from '../domain/errors/apiError.ts';
import { parseJsonInput, readJsonFile, readTextFile } from './cliFiles.ts';
import { cliPrincipal, withRuntime, withoutPosition } from './cliSupport.ts';
import { FLOW_HELP, type FlowRef, ORG_HELP, PROJECT_HELP, type ProjectRef, flowIdOf, projectOf } from './cliRefs.ts';

/** The operator works on the whole database: no organization scope. */
const cliScope = {};

async function textOf(inline: string | undefined, file: string | undefined, what: string): Promise<string | undefined> {
  if (inline !== undefined && file !== undefined) throw new ApiError('VALIDATION_FAILED', `give --${what} or --${what}-file, not both`);
  if (file === undefined) return inline;
  return readTextFile(file, { label: `--${what}-file ${file}`, code: 'VALIDATION_FAILED' });
}

const jsonFile = (file: string) => readJsonFile(file, { label: `--file ${file}`, code: 'VALIDATION_FAILED' });

const versionRef = (value: string): number | 'draft' => {
  if (value === 'draft') return 'draft';
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ApiError('VALIDATION_FAILED', `a version number, or "draft": got ${value}`);
  return n;
};

/** `seqflow flow create|show|list|diff|gate|publish`: a flow's draft and versions. */
export function registerAuthoringCommands(program: Command, flow: Command) {
  registerBlockCommands(program);
  flow
    .command('create')
    .description('a new flow with an empty draft')
    .option('--org <slug|id>', ORG_HELP)
    .requiredOption('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--name <name>')
    .requiredOption('--slug <slug>')
    .action((o: ProjectRef & { name: string; slug: string }) =>
      withRuntime(async (rt) => withoutPosition(await (await import('../authoring/flowAuthoring.ts')).createFlow(rt.commands, cliScope, { projectId: (await projectOf(rt, o)).id, name: o.name, slug: o.slug }, cliPrincipal))),
    );
  flow
    .command('show')
    .description("the flow's draft: every block with its step_id and position")
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .action((o: FlowRef) => withRuntime(async (rt) => (await import('../authoring/flowReading.ts')).showDraft(rt.commands, cliScope, await flowIdOf(rt, o)), { catchUp: false }));
  flow
    .command('list')
    .description("a project's flows")
    .option('--org <slug|id>', ORG_HELP)
    .requiredOption('--project <slug|id>', PROJECT_HELP)
    .action((o: ProjectRef) => withRuntime(async (rt) => (await import('../authoring/flowReading.ts')).listFlows(rt.db, cliScope, (await projectOf(rt, o)).id)));
  flow
    .command('diff')
    .description('what changed between two versions, or a version and the draft')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .requiredOption('--from <n|draft>', 'a version number, or draft', versionRef)
    .requiredOption('--to <n|draft>', 'a version number, or draft', versionRef)
    .action((o: FlowRef & { from: number | 'draft'; to: number | 'draft' }) =>
      withRuntime(async (rt) => (await import('../authoring/flowReading.ts')).diffFlow(rt.commands, cliScope, { flowId: await flowIdOf(rt, o), from: o.from, to: o.to }), { catchUp: false }),
    );
  flow
    .command('gate')
    .description('the promotion gate: --on (production only for versions whose test cases all passed) or --off; --backtest K (only versions a backtest changed at most K% of the answers of) or --backtest off')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .option('--on')
    .option('--off')
    .option('--backtest <percent|off>', 'the backtest rule: at most this share (0-100) of changed answers, or off')
    .action((o: FlowRef & { on?: boolean; off?: boolean; backtest?: string }) =>
      withRuntime(async (rt) => {
        if (o.on && o.off) throw new ApiError('VALIDATION_FAILED', 'give --on or --off, not both');
        if (!o.on && !o.off && o.backtest === undefined) throw new ApiError('VALIDATION_FAILED', 'give --on, --off or --backtest <percent|off>');
        const maxChanged = o.backtest === undefined || o.backtest === 'off' ? null : Number(o.backtest);
        if (maxChanged !== null && !(/^\d+(\.\d+)?$/.test(o.backtest!) && maxChanged <= 100)) throw new ApiError('VALIDATION_FAILED', `--backtest: expected a percentage from 0 to 100, or off (got '${o.backtest}')`);
        const { setBacktestGate, setPromotionGate } = await import('../authoring/flowAuthoring.ts');
        const flowId = await flowIdOf(rt, o);
        const tests = o.on || o.off ? await setPromotionGate(rt.commands, cliScope, { flowId, enabled: Boolean(o.on) }, cliPrincipal) : undefined;
        const backtest = o.backtest !== undefined ? await setBacktestGate(rt.commands, cliScope, { flowId, maxChangedPercent: maxChanged }, cliPrincipal) : undefined;
        return { flowId, ...(tests ? { promotionGate: tests.promotionGate } : {}), ...(backtest ? { backtestGate: backtest.backtestGate === null ? 'off' : `at most ${backtest.backtestGate}% changed` } : {}) };
      }),
    );
  flow
    .command('publish')
    .description('publish the draft as the next version (refused, with every problem, when it is not valid)')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .option('--note <text>')
    .action((o: FlowRef & { note?: string }) =>
      withRuntime(async (rt) => withoutPosition(await (await import('../authoring/flowAuthoring.ts')).publishDraft(rt.commands, cliScope, { flowId: await flowIdOf(rt, o), note: o.note ?? null }, cliPrincipal))),
    );
}

/** `seqflow block add|update|remove|schema|loop`: editing a flow's draft block by block. */
function registerBlockCommands(program: Command) {
  const block = program.command('block').description("editing a flow's draft block by block");
  block
    .command('add')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .requiredOption('--name <name>')
    .addOption(new Option('--type <processor_type>').choices(processorTypes).makeOptionMandatory())
    .option('--prompt <text>')
    .option('--prompt-file <path>')
    .option('--code <text>')
    .option('--code-file <path>')
    .option('--model <model>')
    .option('--target <step_id>', 'the block to place it by (not needed for the first block)')
    .addOption(new Option('--direction <direction>', 'right: a new step after the target; bottom: a parallel sibling').choices(['right', 'bottom']))
    .action((o: FlowRef & { name: string; type: ProcessorType; prompt?: string; promptFile?: string; code?: string; codeFile?: string; model?: string; target?: string; direction?: 'right' | 'bottom' }) =>
      withRuntime(async (rt) => {
        const prompt = await textOf(o.prompt, o.promptFile, 'prompt');
        const code = await textOf(o.code, o.codeFile, 'code');
        const { addBlock } = await import('../authoring/flowAuthoring.ts');
        const added = await addBlock(rt.commands, cliScope, { flowId: await flowIdOf(rt, o), name: o.name, processor_type: o.type, ...(prompt !== undefined ? { prompt } : {}), ...(code !== undefined ? { code } : {}), ...(o.model ? { model: o.model } : {}), targetId: o.target, direction: o.direction }, cliPrincipal);
        return withoutPosition(added);
      }),
    );
  registerBlockUpdate(block);
  block
    .command('remove')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .requiredOption('--block <step_id>')
    .action((o: FlowRef & { block: string }) =>
      withRuntime(async (rt) => withoutPosition(await (await import('../authoring/flowAuthoring.ts')).removeBlock(rt.commands, cliScope, { flowId: await flowIdOf(rt, o), blockId: o.block }, cliPrincipal))),
    );
  block
    .command('schema')
    .description("set (--file, a JSON Schema object) or clear (--clear) an llm block's output schema")
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .requiredOption('--block <step_id>')
    .option('--file <path>')
    .option('--clear')
    .action((o: FlowRef & { block: string; file?: string; clear?: boolean }) =>
      withRuntime(async (rt) => {
        if (!o.file === !o.clear) throw new ApiError('VALIDATION_FAILED', 'give exactly one of --file PATH or --clear');
        const schema = o.file ? ((await jsonFile(o.file)) as Record<string, unknown>) : null;
        const { setBlockOutputSchema } = await import('../authoring/flowAuthoring.ts');
        return withoutPosition(await setBlockOutputSchema(rt.commands, cliScope, { flowId: await flowIdOf(rt, o), blockId: o.block, schema }, cliPrincipal));
      }),
    );
  block
    .command('loop')
    .description('run a block once per item of an array (--over previous_output.items or parameters.list), or --unwrap it')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .requiredOption('--block <step_id>')
    .option('--over <path>')
    .option('--unwrap')
    .action((o: FlowRef & { block: string; over?: string; unwrap?: boolean }) =>
      withRuntime(async (rt) => {
        if (!o.over === !o.unwrap) throw new ApiError('VALIDATION_FAILED', 'give exactly one of --over PATH or --unwrap');
        const { setBlockLoop } = await import('../authoring/flowAuthoring.ts');
        return withoutPosition(await setBlockLoop(rt.commands, cliScope, { flowId: await flowIdOf(rt, o), blockId: o.block, over: o.over ?? null }, cliPrincipal));
      }),
    );
}

/** `seqflow block update`: a block's settings, prompt or code. */
function registerBlockUpdate(block: Command) {
  block
    .command('update')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .requiredOption('--block <step_id>')
    .option('--name <name>')
    .option('--model <model>', 'a model, or "default" to use SEQFLOW_DEFAULT_MODEL')
    .option('--prompt <text>')
    .option('--prompt-file <path>')
    .option('--code <text>')
    .option('--code-file <path>')
    .option('--config <json>', 'processor_config, e.g. {"tools_enabled": true}')
    .action((o: FlowRef & { block: string; name?: string; model?: string; prompt?: string; promptFile?: string; code?: string; codeFile?: string; config?: string }) =>
      withRuntime(async (rt) => {
        const prompt = await textOf(o.prompt, o.promptFile, 'prompt');
        const code = await textOf(o.code, o.codeFile, 'code');
        const config = o.config === undefined ? undefined : parseJsonInput(o.config, { label: '--config', code: 'VALIDATION_FAILED' });
        const changes = {
          ...(o.name !== undefined ? { name: o.name } : {}),
          ...(o.model !== undefined ? { model: o.model === 'default' ? null : o.model } : {}),
          ...(prompt !== undefined ? { prompt } : {}),
          ...(code !== undefined ? { code } : {}),
          ...(config !== undefined ? { processor_config: config as never } : {}),
        };
        if (Object.keys(changes).length === 0) throw new ApiError('VALIDATION_FAILED', 'nothing to change: give --name, --model, --prompt, --code or --config');
        const { updateBlock } = await import('../authoring/flowAuthoring.ts');
        return withoutPosition(await updateBlock(rt.commands, cliScope, { flowId: await flowIdOf(rt, o), blockId: o.block, changes }, cliPrincipal));
      }),
    );
}
