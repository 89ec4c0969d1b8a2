import type { FlowRevisionRecord } from '@lanner/model';
import { z } from 'zod';
import { instant, pageOf } from '../openapi/zod-openapi';

// What the flow routes answer; the OpenAPI document, and so the UI's types, are generated from it.

/** A flow as the API shows it: the parsed fields, plus its identity, revision and the YAML as sent. */
export const FlowViewSchema = z
  .looseObject({
    id: z.string(),
    namespace: z.string(),
    tenantId: z.string(),
    revision: z.number().int().min(1),
    source: z.string().describe('The YAML exactly as it was sent'),
    updated: instant().describe('When this revision was saved'),
  })
  .describe("The flow's own fields as parsed from its YAML (tasks, inputs, triggers, …), then these");

export const FlowPageSchema = pageOf(FlowViewSchema);

export type FlowView = z.output<typeof FlowViewSchema>;

export function flowView(record: FlowRevisionRecord): FlowView {
  const parsed =
    record.definition !== null && typeof record.definition === 'object' && !Array.isArray(record.definition)
      ? record.definition
      : {};
  return {
    ...parsed,
    id: record.flowId,
    namespace: record.namespace,
    tenantId: record.tenantId,
    revision: record.revision,
    source: record.source,
    updated: record.createdAt.toISOString(),
  };
}
