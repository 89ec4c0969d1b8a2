// The stored state of a flow's triggers, as the scheduler and the API read it.

import type { BackfillProgress } from '../schedule/backfill';

/** Identifies one trigger of one flow. */
export interface TriggerKey {
  readonly tenantId: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly triggerId: string;
}

export interface TriggerStateRecord extends TriggerKey {
  /** The trigger's kind in the model (Schedule, Flow, Webhook, HttpPolling). */
  readonly kind: string;
  /** The next date the scheduler evaluates; null when not evaluated yet or not a schedule. */
  readonly nextDate: Date | null;
  /** True until the scheduler first evaluates a new or changed schedule. */
  readonly pending: boolean;
  /** The date of the last firing. */
  readonly lastDate: Date | null;
  readonly lastExecutionId: string | null;
  /** The state of that execution now, when it still exists. */
  readonly lastExecutionState: string | null;
  readonly lockHolder: string | null;
  readonly lockExpiresAt: Date | null;
  /** Disabled through the API. */
  readonly disabled: boolean;
  readonly updatedAt: Date;
  /** The backfill of this schedule, running, paused or finished; null when none. */
  readonly backfill: TriggerBackfillRecord | null;
}

/** A schedule's backfill: its progress, and the inputs and labels of the executions it starts. */
export interface TriggerBackfillRecord extends BackfillProgress {
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly createdAt: Date;
}

/** What a flow revision declares about one of its triggers. */
export interface DeclaredTrigger {
  readonly triggerId: string;
  readonly kind: string;
  /** For schedules: what decides their dates; a change re-reads the schedule from now. */
  readonly scheduleSpec?: string;
}

export interface TriggerSearchQuery {
  readonly namespace?: string;
  readonly flowId?: string;
  /** 1-based. */
  readonly page: number;
  readonly size: number;
}
