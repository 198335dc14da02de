import type { Command } from 'commander';
import { printJson } from './cliSupport.ts';

/**
 * `seqflow models list`: the model catalog this configuration runs with (the built-in one, then
 * SEQFLOW_MODEL_CATALOG, then SEQFLOW_MODEL_REGISTRY), as JSON: provider, image types, tools,
 * structured output, context window and prices per million tokens. Needs no database.
 */
export function registerModelsCommands(program: Command) {
  const models = program.command('models').description('the model catalog: providers, capabilities and prices');
  models
    .command('list')
    .description('print the model catalog this configuration runs with (JSON)')
    .action(async () => {
      const [{ loadConfig }, { createModelRegistry }] = await Promise.all([import('../config/config.ts'), import('../execution/modelRegistry.ts')]);
      const { execution } = loadConfig();
      printJson({ models: createModelRegistry(execution.modelRegistry, execution.modelCatalog).catalog() });
    });
}
