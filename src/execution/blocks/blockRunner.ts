import type { Context } from '@opentelemetry/api';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { StoredBlock } from '../../domain/flows/flowDefinition.ts';
import type { TemplateContext } from '../../domain/templating/template.ts';
import type { RunSession } from '../runContext.ts';

/** One execution of a block, as the step runner hands it to the block's kind. */
export interface BlockStep {
  session: RunSession;
  block: StoredBlock;
  context: TemplateContext;
  stepIndex: number;
  /** The loop item's index, or null outside a loop. */
  iteration: number | null;
  /** The conversation a resume continues (the pause's messages and the caller's tool results). */
  conversation?: ChatCompletionMessageParam[];
  /** The step's span: the parent of the spans of what the block calls. */
  span: Context;
  /** The run's last step: its completion may go in one append with the run's end. */
  endsRun: boolean;
}

/**
 * How a kind runs a block: it notes the step's start and its end (or failure) with the run's
 * recorder and answers the step's output; a `BlockFailure` fails the step, `PausedForTools` pauses
 * the run.
 */
export type BlockRunner = (step: BlockStep) => Promise<unknown>;
