/**
 * Span attribute names. The GenAI ones are still "incubating" in the OpenTelemetry semantic
 * conventions, whose package advises copying such names rather than importing its unstable entry
 * point: these follow semantic-conventions 1.45 (gen_ai.provider.name replaced gen_ai.system).
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  workflowName: 'gen_ai.workflow.name',
} as const;

/** Seqflow's own attributes, under its namespace. */
export const SEQFLOW = {
  executionId: 'seqflow.execution_id',
  flowId: 'seqflow.flow_id',
  organizationId: 'seqflow.organization_id',
  outcome: 'seqflow.run.outcome',
  stepIndex: 'seqflow.step.index',
  blockName: 'seqflow.block.name',
  processorType: 'seqflow.block.processor_type',
  iteration: 'seqflow.loop.iteration',
  paused: 'seqflow.step.paused_for_tools',
  deliveryId: 'seqflow.delivery.id',
  webhookEvent: 'seqflow.webhook.event',
  attempt: 'seqflow.delivery.attempt',
} as const;
