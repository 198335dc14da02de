import type { Kysely } from 'kysely';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { addBlock, createFlow, publishDraft, removeBlock, requireFlow, setBacktestGate, setBlockOutputSchema, setProduction, setPromotionGate, updateBlock, updateBlockDraft, validateDraft } from './flowAuthoring.ts';
import { diffFlow, showDraft } from './flowReading.ts';
import { flowReceivesImages, projectMap } from './projectMap.ts';
import { listProjects, resolveProjectId } from './projectList.ts';
import { listRunsOfFlow } from './flowRunListing.ts';
import { listSchedulesOfFlow } from './flowScheduleListing.ts';
import { decideFlowApproval, listFlowApprovals } from './flowApprovals.ts';

/** A use case's arguments after its dependencies. */
type Args<F> = F extends (deps: never, ...args: infer A) => unknown ? A : never;

/**
 * The authoring use cases, bound once to the log and the read models: what a transport (MCP, and
 * later others) edits flows with, passing only a scope, the input and who it is.
 */
export function createAuthoringService(deps: { commands: CommandDependencies; db: Kysely<ReadModels> }) {
  const { commands, db } = deps;
  return {
    listProjects: (...args: Args<typeof listProjects>) => listProjects(db, ...args),
    /** `project`: an id, or `organization-slug/project-slug`: its id. */
    resolveProject: (...args: Args<typeof resolveProjectId>) => resolveProjectId(db, ...args),
    listRuns: (...args: Args<typeof listRunsOfFlow>) => listRunsOfFlow({ commands, db }, ...args),
    listSchedules: (...args: Args<typeof listSchedulesOfFlow>) => listSchedulesOfFlow({ commands, db }, ...args),
    listApprovals: (...args: Args<typeof listFlowApprovals>) => listFlowApprovals({ commands, db }, ...args),
    decideApproval: (...args: Args<typeof decideFlowApproval>) => decideFlowApproval(commands, ...args),
    /** `project`: an id, or `organization-slug/project-slug`. */
    projectMap: async (scope: Parameters<typeof projectMap>[1], project: string) => projectMap(db, scope, await resolveProjectId(db, scope, project)),
    flowReceivesImages: (...args: Args<typeof flowReceivesImages>) => flowReceivesImages(db, ...args),
    requireFlow: (...args: Args<typeof requireFlow>) => requireFlow(commands, ...args),
    showDraft: (...args: Args<typeof showDraft>) => showDraft(commands, ...args),
    diffFlow: (...args: Args<typeof diffFlow>) => diffFlow(commands, ...args),
    createFlow: (...args: Args<typeof createFlow>) => createFlow(commands, ...args),
    addBlock: (...args: Args<typeof addBlock>) => addBlock(commands, ...args),
    updateBlock: (...args: Args<typeof updateBlock>) => updateBlock(commands, ...args),
    updateBlockDraft: (...args: Args<typeof updateBlockDraft>) => updateBlockDraft(commands, ...args),
    setBlockOutputSchema: (...args: Args<typeof setBlockOutputSchema>) => setBlockOutputSchema(commands, ...args),
    removeBlock: (...args: Args<typeof removeBlock>) => removeBlock(commands, ...args),
    publishDraft: (...args: Args<typeof publishDraft>) => publishDraft(commands, ...args),
    validateDraft: (...args: Args<typeof validateDraft>) => validateDraft(commands, ...args),
    /** The promotion gate reads the test results' read model. */
    setProduction: (...args: Args<typeof setProduction>) => setProduction({ ...commands, db }, ...args),
    setPromotionGate: (...args: Args<typeof setPromotionGate>) => setPromotionGate(commands, ...args),
    setBacktestGate: (...args: Args<typeof setBacktestGate>) => setBacktestGate(commands, ...args),
  };
}

export type AuthoringService = ReturnType<typeof createAuthoringService>;
