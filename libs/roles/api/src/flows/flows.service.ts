import { Injectable } from '@nestjs/common';
import type { Flow, FlowProblem, FlowRevisionRecord, ParseFlowResult, RecordPage, StoredJson } from '@lanner/model';
import { FlowNotFound, type TenantRepositories } from '@lanner/repository';
import { InvalidContent, type ProblemEntry } from '../http/api-errors';
import { findUnstorable, unstorableTextProblems } from '../http/storable-text';
import { FlowChangeBroadcasts } from './flow-change-broadcasts';
import { FlowSourceParser } from './flow-source-parser';
import { ParsedFlowCache } from './parsed-flow-cache';

export function problemEntries(problems: readonly FlowProblem[]): ProblemEntry[] {
  return problems.map((p) => ({
    path: p.path,
    message: p.message,
    ...(p.line === undefined ? {} : { line: p.line }),
    ...(p.column === undefined ? {} : { column: p.column }),
  }));
}

/**
 * Text PostgreSQL cannot store, in a flow that parsed: each value or key with
 * its YAML path (a `\0` or `\ud800` escape in a quoted scalar), else the first
 * such character of the source itself (in a comment, say) with its line.
 */
function unstorableFlowProblems(source: string, flow: Flow): ProblemEntry[] {
  const inValues = unstorableTextProblems(definitionOf(flow));
  if (inValues.length > 0) return inValues;
  const found = findUnstorable(source);
  if (found === undefined) return [];
  const before = source.slice(0, found.index).split('\n');
  return [
    {
      path: '$',
      message: `the source contains ${found.character}`,
      line: before.length,
      column: before[before.length - 1].length + 1,
    },
  ];
}

/** The parsed flow, or InvalidContent (422) listing every problem with its YAML path and line. */
function flowOrThrow(source: string, result: ParseFlowResult): Flow {
  if (!result.ok) throw new InvalidContent('The flow is not valid', problemEntries(result.problems));
  const unstorable = unstorableFlowProblems(source, result.flow);
  if (unstorable.length > 0) throw new InvalidContent('The flow holds text that cannot be stored', unstorable);
  return result.flow;
}

/** The parsed flow as stored JSON (undefined fields dropped). */
function definitionOf(flow: Flow): StoredJson {
  return JSON.parse(JSON.stringify(flow)) as StoredJson;
}

@Injectable()
export class FlowsService {
  constructor(
    private readonly parser: FlowSourceParser,
    private readonly parsedFlows: ParsedFlowCache,
    private readonly changes: FlowChangeBroadcasts,
  ) {}

  /** Parses a flow or throws InvalidContent (422) listing every problem with its YAML path and line. */
  async parseOrThrow(source: string): Promise<Flow> {
    return flowOrThrow(source, await this.parser.parse(source));
  }

  /** `allowNamespace` refuses (throws) a namespace the caller may not write to, before anything is stored. */
  async create(
    tenant: TenantRepositories,
    source: string,
    allowNamespace: (namespace: string) => void = () => undefined,
  ): Promise<FlowRevisionRecord> {
    const flow = await this.parseOrThrow(source);
    allowNamespace(flow.namespace);
    const created = await tenant.flows.create({
      namespace: flow.namespace,
      flowId: flow.id,
      source,
      definition: definitionOf(flow),
    });
    this.parsedFlows.forget(tenant.tenantId, flow.namespace, flow.id);
    await this.changes.changed({
      tenantId: tenant.tenantId,
      namespace: flow.namespace,
      flowId: flow.id,
      revision: created.revision,
    });
    return created;
  }

  /** A new revision; `created` when the flow did not exist (or was deleted). */
  async save(
    tenant: TenantRepositories,
    namespace: string,
    flowId: string,
    source: string,
  ): Promise<{ flow: FlowRevisionRecord; created: boolean }> {
    const flow = await this.parseOrThrow(source);
    const mismatches: ProblemEntry[] = [];
    if (flow.namespace !== namespace)
      mismatches.push({ path: 'namespace', message: `must be '${namespace}', the namespace in the URL` });
    if (flow.id !== flowId) mismatches.push({ path: 'id', message: `must be '${flowId}', the flow id in the URL` });
    if (mismatches.length > 0) throw new InvalidContent('The flow does not match the URL', mismatches);
    const existed = await tenant.flows.getLatest(namespace, flowId).then(
      () => true,
      (error: unknown) => {
        if (error instanceof FlowNotFound) return false;
        throw error;
      },
    );
    const saved = await tenant.flows.saveRevision({
      namespace,
      flowId,
      source,
      definition: definitionOf(flow),
    });
    this.parsedFlows.forget(tenant.tenantId, namespace, flowId);
    await this.changes.changed({ tenantId: tenant.tenantId, namespace, flowId, revision: saved.revision });
    return { flow: saved, created: !existed };
  }

  get(tenant: TenantRepositories, namespace: string, flowId: string, revision?: number): Promise<FlowRevisionRecord> {
    return revision === undefined
      ? tenant.flows.getLatest(namespace, flowId)
      : tenant.flows.getRevision(namespace, flowId, revision);
  }

  async delete(tenant: TenantRepositories, namespace: string, flowId: string): Promise<void> {
    const deleted = await tenant.flows.softDelete(namespace, flowId);
    this.parsedFlows.forget(tenant.tenantId, namespace, flowId);
    await this.changes.changed({ tenantId: tenant.tenantId, namespace, flowId, revision: deleted.revision });
  }

  search(
    tenant: TenantRepositories,
    query: { namespace?: string; q?: string; page: number; size: number },
  ): Promise<RecordPage<FlowRevisionRecord>> {
    return tenant.flows.search({
      namespace: query.namespace,
      text: query.q,
      page: query.page,
      size: query.size,
    });
  }

  /** Every problem of the flow; empty when it is valid. */
  async validate(source: string): Promise<ProblemEntry[]> {
    const result = await this.parser.parse(source);
    if (!result.ok) return problemEntries(result.problems);
    const warnings = problemEntries(result.warnings ?? []).map((entry) => ({ ...entry, severity: 'WARNING' as const }));
    return [...unstorableFlowProblems(source, result.flow), ...warnings];
  }
}
