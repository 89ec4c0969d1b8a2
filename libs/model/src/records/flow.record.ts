import type { StoredJson } from './states';

/** One stored revision of a flow. The latest non-deleted revision is the live flow. */
export interface FlowRevisionRecord {
  readonly tenantId: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly revision: number;
  /** The YAML exactly as the user sent it. */
  readonly source: string;
  /** The parsed, validated flow. */
  readonly definition: StoredJson;
  /** True on the revision that deleted the flow. */
  readonly deleted: boolean;
  readonly createdAt: Date;
}

export interface NewFlowRevision {
  readonly namespace: string;
  readonly flowId: string;
  readonly source: string;
  readonly definition: StoredJson;
}

export interface FlowSearchQuery {
  /** Matches this namespace and its descendants (`a.b` matches `a.b.c`). */
  readonly namespace?: string;
  /** Case-insensitive substring of the flow id or namespace. */
  readonly text?: string;
  /** 1-based. */
  readonly page: number;
  readonly size: number;
}
