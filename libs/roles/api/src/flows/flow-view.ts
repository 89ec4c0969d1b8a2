import type { FlowRevisionRecord } from '@lanner/model';

/** A flow as the API shows it: the parsed fields, plus its identity, revision and the YAML as sent. */
export function flowView(record: FlowRevisionRecord): Record<string, unknown> {
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
