import type { AddressGuard } from '../outbound/addressGuard.ts';
import type { EngineDependencies } from '../execution/engineDependencies.ts';
import type { ModelRegistry } from '../execution/modelRegistry.ts';
import type { FlowCatalog } from '../caches/flowCatalog.ts';
import type { RunLifecycle } from './runLifecycle.ts';
import type { CallbackPolicy } from './callbackCheck.ts';

/** The checks a run's attachments pass before any event: the outbound guard and which models see images. */
export interface AttachmentChecks {
  guard: AddressGuard;
  registry: ModelRegistry;
  defaultModel: string;
}

/** What starting a run needs: the flows callers reach, the engine, the attachment checks, and this process's live runs. */
export interface RunStarting {
  flows: Pick<FlowCatalog, 'findExecutableFlow' | 'versionSteps'>;
  engine: EngineDependencies;
  attachments: AttachmentChecks;
  callbacks: CallbackPolicy;
  lifecycle: RunLifecycle;
}
