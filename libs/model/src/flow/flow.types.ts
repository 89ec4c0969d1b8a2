// The typed flow model: what `parseFlow` returns from Kestra-format YAML. Pure
// data, no behaviour. Durations are ISO-8601 strings in the YAML and
// milliseconds here; templates (`{{ }}`) are kept as strings and rendered late.

/** A string that may hold `{{ }}` expressions, rendered just before use. */
export type Template = string;

/** Any JSON-like value whose strings may hold templates (rendered recursively). */
export type TemplatedValue = null | boolean | number | string | TemplatedValue[] | { [key: string]: TemplatedValue };

export const INPUT_TYPES = [
  'STRING',
  'INT',
  'FLOAT',
  'BOOLEAN',
  'DATETIME',
  'DURATION',
  'JSON',
  'ARRAY',
  'SELECT',
  'FILE',
] as const;
export type InputType = (typeof INPUT_TYPES)[number];

export interface FlowInput {
  readonly id: string;
  readonly type: InputType;
  readonly description?: string;
  /** Kestra's `displayName`: the label a UI shows instead of the id. */
  readonly displayName?: string;
  /** Default true, as in Kestra. */
  readonly required: boolean;
  readonly defaults?: unknown;
  /** STRING: a regular expression the value must match. */
  readonly validator?: string;
  /** INT / FLOAT bounds. */
  readonly min?: number;
  readonly max?: number;
  /** SELECT: the allowed values. */
  readonly values?: readonly string[];
  /** ARRAY: the type of each item. */
  readonly itemType?: Exclude<InputType, 'ARRAY' | 'SELECT' | 'FILE'>;
}

export const OUTPUT_TYPES = ['STRING', 'INT', 'FLOAT', 'BOOLEAN', 'DATETIME', 'DURATION', 'JSON', 'ARRAY'] as const;
export type OutputType = (typeof OUTPUT_TYPES)[number];

export interface FlowOutput {
  readonly id: string;
  readonly type: OutputType;
  readonly value: TemplatedValue;
  readonly description?: string;
  /** Kestra's `displayName`: the label a UI shows instead of the id. */
  readonly displayName?: string;
}

export type SelectorMatch = 'ALL' | 'ANY';
export type SelectorFallback = 'FAIL' | 'WAIT' | 'CANCEL' | 'IGNORE';

export interface WorkerSelectorSpec {
  readonly tags: readonly Template[];
  readonly match: SelectorMatch;
  /** Only allowed with tags; absent means the default (WAIT). */
  readonly fallback?: SelectorFallback;
}

export type LogLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export type RetryBehavior = 'RETRY_FAILED_TASK' | 'CREATE_NEW_EXECUTION';

interface RetryCommon {
  readonly maxAttempts?: number;
  readonly maxDurationMs?: number;
  readonly behavior: RetryBehavior;
  /** Kestra's `warningOnRetry`: a success after retries ends as WARNING. */
  readonly warningOnRetry: boolean;
}
export interface ConstantRetry extends RetryCommon {
  readonly type: 'constant';
  readonly intervalMs: number;
}
export interface ExponentialRetry extends RetryCommon {
  readonly type: 'exponential';
  readonly intervalMs: number;
  readonly maxIntervalMs: number;
  readonly delayFactor?: number;
}
export interface RandomRetry extends RetryCommon {
  readonly type: 'random';
  readonly minIntervalMs: number;
  readonly maxIntervalMs: number;
}
export type RetryPolicy = ConstantRetry | ExponentialRetry | RandomRetry;

export type SlaBehavior = 'FAIL' | 'CANCEL' | 'NONE';

/** Kestra's flow `sla`: a MAX_DURATION (running longer than `durationMs`) or an EXECUTION_ASSERTION (`assert` false at the end). */
export type FlowSla =
  | {
      readonly id: string;
      readonly type: 'MAX_DURATION';
      readonly durationMs: number;
      readonly behavior: SlaBehavior;
      readonly labels: Readonly<Record<string, Template>>;
    }
  | {
      readonly id: string;
      readonly type: 'EXECUTION_ASSERTION';
      readonly assert: Template;
      readonly behavior: SlaBehavior;
      readonly labels: Readonly<Record<string, Template>>;
    };

export type ConcurrencyBehavior = 'QUEUE' | 'CANCEL' | 'FAIL';
export interface FlowConcurrency {
  readonly limit: number;
  readonly behavior: ConcurrencyBehavior;
}

/** Properties every task has, whatever its type. */
export interface TaskCommon {
  readonly id: string;
  readonly type: string;
  readonly description?: string;
  readonly disabled: boolean;
  /** A condition template; the task is SKIPPED when it renders falsy. */
  readonly runIf?: Template;
  readonly allowFailure: boolean;
  readonly allowWarning: boolean;
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
  readonly workerSelector?: WorkerSelectorSpec;
  /** Task output cache (runnable tasks). */
  readonly taskCache?: { readonly enabled: boolean; readonly ttlMs?: number };
  /** Kestra's `logLevel`: the lowest level of the task's logs that is kept. */
  readonly logLevel?: LogLevel;
  /** Kestra's `logToFile`: accepted; Lanner keeps logs in its log store either way. */
  readonly logToFile?: boolean;
}

/** A duration written as ISO-8601 (milliseconds here) or as a template rendered to one when it is used. */
export type DurationSpec = number | Template;

// ---- Flowable tasks (run in the executor) ---------------------------------

export const TASK_TYPES = {
  Sequential: 'io.kestra.plugin.core.flow.Sequential',
  Parallel: 'io.kestra.plugin.core.flow.Parallel',
  If: 'io.kestra.plugin.core.flow.If',
  Switch: 'io.kestra.plugin.core.flow.Switch',
  ForEach: 'io.kestra.plugin.core.flow.ForEach',
  EachSequential: 'io.kestra.plugin.core.flow.EachSequential',
  EachParallel: 'io.kestra.plugin.core.flow.EachParallel',
  Dag: 'io.kestra.plugin.core.flow.Dag',
  AllowFailure: 'io.kestra.plugin.core.flow.AllowFailure',
  WaitFor: 'io.kestra.plugin.core.flow.WaitFor',
  Pause: 'io.kestra.plugin.core.flow.Pause',
  Subflow: 'io.kestra.plugin.core.flow.Subflow',
  Fail: 'io.kestra.plugin.core.execution.Fail',
  Labels: 'io.kestra.plugin.core.execution.Labels',
  Log: 'io.kestra.plugin.core.log.Log',
  Echo: 'io.kestra.plugin.core.debug.Echo',
  Return: 'io.kestra.plugin.core.debug.Return',
  OutputValues: 'io.kestra.plugin.core.output.OutputValues',
  Sleep: 'io.kestra.plugin.core.flow.Sleep',
  HttpRequest: 'io.kestra.plugin.core.http.Request',
  ShellCommands: 'io.kestra.plugin.scripts.shell.Commands',
  NodeScript: 'io.kestra.plugin.scripts.node.Script',
  StorageWrite: 'io.kestra.plugin.core.storage.Write',
  StorageSize: 'io.kestra.plugin.core.storage.Size',
  StorageDelete: 'io.kestra.plugin.core.storage.Delete',
  StorageConcat: 'io.kestra.plugin.core.storage.Concat',
  StorageSplit: 'io.kestra.plugin.core.storage.Split',
  PurgeCurrentExecutionFiles: 'io.kestra.plugin.core.storage.PurgeCurrentExecutionFiles',
  LocalFiles: 'io.kestra.plugin.core.storage.LocalFiles',
} as const;

/** Branches a flowable may carry besides its main tasks. */
interface FlowableBranches {
  readonly errors?: readonly Task[];
  readonly finally?: readonly Task[];
}

export interface SequentialTask extends TaskCommon, FlowableBranches {
  readonly kind: 'Sequential';
  readonly tasks: readonly Task[];
}
export interface ParallelTask extends TaskCommon, FlowableBranches {
  readonly kind: 'Parallel';
  readonly tasks: readonly Task[];
  /** 0 = unlimited. */
  readonly concurrency: number;
}
export interface IfTask extends TaskCommon, FlowableBranches {
  readonly kind: 'If';
  readonly condition: Template;
  readonly then: readonly Task[];
  readonly else?: readonly Task[];
}
export interface SwitchTask extends TaskCommon, FlowableBranches {
  readonly kind: 'Switch';
  readonly value: Template;
  readonly cases: Readonly<Record<string, readonly Task[]>>;
  readonly defaults?: readonly Task[];
}
export interface ForEachTask extends TaskCommon, FlowableBranches {
  readonly kind: 'ForEach';
  /** A list, or a template rendering to a JSON list. */
  readonly values: TemplatedValue;
  /** 0 = unlimited; EachSequential reads as 1, EachParallel as 0. */
  readonly concurrencyLimit: number;
  readonly tasks: readonly Task[];
}
export interface DagTask extends TaskCommon, FlowableBranches {
  readonly kind: 'Dag';
  readonly tasks: readonly { readonly task: Task; readonly dependsOn: readonly string[] }[];
  readonly concurrency: number;
}
export interface AllowFailureTask extends TaskCommon, FlowableBranches {
  readonly kind: 'AllowFailure';
  readonly tasks: readonly Task[];
}
export interface WaitForTask extends TaskCommon {
  readonly kind: 'WaitFor';
  /** Loop the tasks until this renders true. */
  readonly condition: Template;
  readonly tasks: readonly Task[];
  readonly checkFrequency: { readonly intervalMs: number; readonly maxIterations?: number; readonly maxDurationMs?: number };
  readonly failOnMaxReached: boolean;
}
export interface PauseTask extends TaskCommon {
  readonly kind: 'Pause';
  /** Resume by itself after this long; absent = wait for a resume through the API. */
  readonly pauseDurationMs?: DurationSpec;
  /** Fail if not resumed within this long. */
  readonly pauseTimeoutMs?: DurationSpec;
  /** Kestra's `onResume`: the inputs a resume may carry, checked and defaulted like execution inputs. */
  readonly onResume?: readonly FlowInput[];
  /** Kestra's deprecated `tasks`: run one after the other once the Pause is resumed. */
  readonly tasks?: readonly Task[];
  /** Run when one of `tasks` failed. */
  readonly errors?: readonly Task[];
}
export interface SubflowTask extends TaskCommon {
  readonly kind: 'Subflow';
  readonly namespace: string;
  readonly flowId: string;
  readonly revision?: number;
  readonly inputs?: Readonly<Record<string, TemplatedValue>>;
  readonly labels?: Readonly<Record<string, Template>>;
  readonly wait: boolean;
  readonly transmitFailed: boolean;
  /** Kestra's `inheritLabels`: the subflow execution gets this execution's labels. */
  readonly inheritLabels?: boolean;
  /** Kestra's deprecated `outputs` map (with a warning): rendered against the child when it ends, if its flow declares no outputs. */
  readonly outputs?: Readonly<Record<string, TemplatedValue>>;
}
export interface FailTask extends TaskCommon {
  readonly kind: 'Fail';
  /** Fails only when this renders truthy (Kestra: anything but false, 0, -0 and ''). */
  readonly condition?: Template;
  readonly errorMessage: Template;
}
export interface LabelsTask extends TaskCommon {
  readonly kind: 'Labels';
  /** A mapping (or `{ key, value }` list) of templates, or one template rendering to a JSON object. */
  readonly labels: Readonly<Record<string, Template>> | Template;
}

export type FlowableTask =
  | SequentialTask
  | ParallelTask
  | IfTask
  | SwitchTask
  | ForEachTask
  | DagTask
  | AllowFailureTask
  | WaitForTask
  | PauseTask
  | SubflowTask
  | LabelsTask;

// ---- Runnable tasks (run on a worker) --------------------------------------

export interface LogTask extends TaskCommon {
  readonly kind: 'Log';
  readonly message: TemplatedValue;
  readonly level: LogLevel;
}
export interface ReturnTask extends TaskCommon {
  readonly kind: 'Return';
  readonly format: Template;
}
export interface OutputValuesTask extends TaskCommon {
  readonly kind: 'OutputValues';
  readonly values: Readonly<Record<string, TemplatedValue>>;
}
export interface SleepTask extends TaskCommon {
  readonly kind: 'Sleep';
  readonly durationMs: number;
}
export interface HttpRequestTask extends TaskCommon {
  readonly kind: 'HttpRequest';
  readonly uri: Template;
  readonly method: string;
  readonly headers?: Readonly<Record<string, Template>>;
  readonly body?: TemplatedValue;
  readonly contentType?: string;
}
/**
 * What Kestra's script tasks share about files: `inputFiles` maps a file name in the
 * working directory to its content, or to a `kestra:///` URI whose file is fetched there;
 * `outputFiles` names (or globs) the files stored after the script, output as
 * `outputFiles.<name>` = their URI.
 */
export interface ScriptFiles {
  readonly inputFiles?: Readonly<Record<string, Template>>;
  readonly outputFiles?: readonly Template[];
  /**
   * Kestra's `namespaceFiles`: the namespace's files (`kestra:///<namespace>/_files/...`)
   * copied into the working directory when enabled, those matching `include` (all when
   * absent) and no `exclude` glob. `inputFiles` are written after them and win.
   */
  readonly namespaceFiles?: NamespaceFilesSpec;
}
export interface NamespaceFilesSpec {
  readonly enabled: boolean;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}
export interface ShellCommandsTask extends TaskCommon, ScriptFiles {
  readonly kind: 'ShellCommands';
  readonly commands: readonly Template[];
  readonly env?: Readonly<Record<string, Template>>;
}
export interface NodeScriptTask extends TaskCommon, ScriptFiles {
  readonly kind: 'NodeScript';
  readonly script: Template;
  readonly env?: Readonly<Record<string, Template>>;
}

// Kestra's core storage tasks: they run on a worker, where internal storage is.

/** Kestra's storage.Write: stores `content` as a new file of the task run; output `uri`. */
export interface StorageWriteTask extends TaskCommon {
  readonly kind: 'StorageWrite';
  readonly content: Template;
  /** The stored file's extension, `.ion` by default as in Kestra. */
  readonly extension: Template;
}
/** Kestra's storage.Size: output `size`, the bytes of the file at `uri`. */
export interface StorageSizeTask extends TaskCommon {
  readonly kind: 'StorageSize';
  readonly uri: Template;
}
/** Kestra's storage.Delete: deletes the file at `uri`; outputs `uri` and `deleted`. */
export interface StorageDeleteTask extends TaskCommon {
  readonly kind: 'StorageDelete';
  readonly uri: Template;
  /** Fail when there is no file at `uri` (default false: `deleted` is false then). */
  readonly errorOnMissing: boolean;
}
/** Kestra's storage.Concat: the files, in order, as one new file of the task run; output `uri`. */
export interface StorageConcatTask extends TaskCommon {
  readonly kind: 'StorageConcat';
  /** A list of URIs, or a template rendering to a JSON list of them. */
  readonly files: readonly Template[] | Template;
  readonly separator?: Template;
  /** `.tmp` by default as in Kestra. */
  readonly extension: Template;
}
/**
 * Kestra's storage.Split: the file at `from` cut into new files of the task run, at
 * `separator` boundaries (a newline by default); exactly one of `bytes` (largest file,
 * "10MB" or a number), `rows` (lines per file) or `partitions` (number of files, rows
 * dealt round-robin). Output `uris`.
 */
export interface StorageSplitTask extends TaskCommon {
  readonly kind: 'StorageSplit';
  readonly from: Template;
  readonly by: { readonly kind: 'bytes' | 'rows' | 'partitions'; readonly value: Template };
  readonly separator: Template;
}
/**
 * Kestra's deprecated LocalFiles: `inputs` (name -> content or kestra:/// URI) written in
 * the task's working directory, then the files matching `outputs` stored; output `uris`.
 * Lanner has no WorkingDirectory, so it sees only its own files.
 */
export interface LocalFilesTask extends TaskCommon {
  readonly kind: 'LocalFiles';
  readonly inputs?: Readonly<Record<string, Template>>;
  readonly outputs?: readonly Template[];
}
/** Kestra's PurgeCurrentExecutionFiles: deletes every file of the current execution; output `uris`. */
export interface PurgeCurrentExecutionFilesTask extends TaskCommon {
  readonly kind: 'PurgeCurrentExecutionFiles';
}
export type StorageTask =
  | StorageWriteTask
  | StorageSizeTask
  | StorageDeleteTask
  | StorageConcatTask
  | StorageSplitTask
  | PurgeCurrentExecutionFilesTask
  | LocalFilesTask;

/** Kestra's Fail is a runnable task: it runs on a worker, so retry, timeout and allowFailure apply to it as to any. */
export type RunnableTask =
  | LogTask
  | ReturnTask
  | OutputValuesTask
  | SleepTask
  | HttpRequestTask
  | ShellCommandsTask
  | NodeScriptTask
  | FailTask
  | StorageTask;

export type Task = FlowableTask | RunnableTask;
export type TaskKind = Task['kind'];

/**
 * The kinds a worker runs (every kind of `RunnableTask`, the record makes the
 * compiler check it); flowable kinds run in the executor and never reach a worker.
 */
const RUNNABLE_KIND_RECORD: Record<RunnableTask['kind'], true> = {
  Log: true,
  Return: true,
  OutputValues: true,
  Sleep: true,
  HttpRequest: true,
  ShellCommands: true,
  NodeScript: true,
  Fail: true,
  StorageWrite: true,
  StorageSize: true,
  StorageDelete: true,
  StorageConcat: true,
  StorageSplit: true,
  PurgeCurrentExecutionFiles: true,
  LocalFiles: true,
};
export const RUNNABLE_TASK_KINDS: ReadonlySet<string> = new Set(Object.keys(RUNNABLE_KIND_RECORD));

// ---- Triggers ----------------------------------------------------------------

export interface TriggerCommon {
  readonly id: string;
  readonly type: string;
  readonly description?: string;
  readonly disabled: boolean;
  readonly inputs?: Readonly<Record<string, TemplatedValue>>;
}
/** What a Schedule does with dates it missed while no scheduler ran (Kestra's `recoverMissedSchedules`). */
export type RecoverMissedSchedules = 'ALL' | 'LAST' | 'NONE';
export type DayOfWeekName = 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY' | 'SUNDAY';
export type DayInMonth = 'FIRST' | 'SECOND' | 'THIRD' | 'FOURTH' | 'LAST';
/** Conditions a Schedule's date must meet to fire; times are read in the trigger's time zone. */
export type ScheduleCondition =
  | { readonly kind: 'DayWeek'; readonly dayOfWeek: DayOfWeekName }
  | { readonly kind: 'DayWeekInMonth'; readonly dayOfWeek: DayOfWeekName; readonly dayInMonth: DayInMonth }
  | { readonly kind: 'Weekend' }
  /** ISO date-times with an offset; either bound may be absent. */
  | { readonly kind: 'DateTimeBetween'; readonly after?: string; readonly before?: string }
  /** Local times of day `HH:MM[:SS]`; either bound may be absent; `after` later than `before` spans midnight. */
  | { readonly kind: 'TimeBetween'; readonly after?: string; readonly before?: string }
  /** A public holiday of the country (ISO 3166-1 alpha-2) and, when given, its subdivision (ISO 3166-2). */
  | { readonly kind: 'PublicHoliday'; readonly country: string; readonly subDivision?: string };
export interface ScheduleTrigger extends TriggerCommon {
  readonly kind: 'Schedule';
  readonly cron: string;
  readonly timezone: string;
  /** 6 fields, seconds first. */
  readonly withSeconds: boolean;
  readonly recoverMissedSchedules: RecoverMissedSchedules;
  /** Execution states after which the trigger disables itself. */
  readonly stopAfter: readonly string[];
  readonly conditions: readonly ScheduleCondition[];
}
export type FlowTriggerCondition =
  | { readonly kind: 'ExecutionFlow'; readonly namespace: string; readonly flowId: string }
  | { readonly kind: 'ExecutionStatus'; readonly in?: readonly string[]; readonly notIn?: readonly string[] }
  | { readonly kind: 'ExecutionNamespace'; readonly namespace: string; readonly prefix: boolean }
  | { readonly kind: 'ExecutionLabels'; readonly labels: Readonly<Record<string, string>> }
  | { readonly kind: 'Expression'; readonly expression: Template }
  /** An expression on the upstream flow outputs (`trigger.outputs`); never met by an execution without outputs. */
  | { readonly kind: 'ExecutionOutputs'; readonly expression: Template };
/** One upstream flow of a Flow trigger's `preconditions.flows`: an execution of it, ended in one of `states`, with `labels`. */
export interface UpstreamFlowPrecondition {
  readonly namespace: string;
  readonly flowId?: string;
  readonly states?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
}
export type PreconditionFilterField = 'FLOW_ID' | 'NAMESPACE' | 'STATE' | 'EXPRESSION';
export type PreconditionFilterType =
  | 'EQUAL_TO'
  | 'NOT_EQUAL_TO'
  | 'IN'
  | 'NOT_IN'
  | 'IS_TRUE'
  | 'IS_FALSE'
  | 'IS_NULL'
  | 'IS_NOT_NULL'
  | 'STARTS_WITH'
  | 'ENDS_WITH'
  | 'REGEX'
  | 'CONTAINS';
export interface PreconditionFilter {
  readonly field: PreconditionFilterField;
  readonly type: PreconditionFilterType;
  /** The template an EXPRESSION filter renders, or the value the field is compared with. */
  readonly value?: string;
  readonly values?: readonly string[];
}
/** One entry of `preconditions.where`: its filters joined by `operand`. */
export interface ExecutionFilterPrecondition {
  readonly id: string;
  readonly operand: 'AND' | 'OR';
  readonly filters: readonly PreconditionFilter[];
}
/** Over which time the preconditions of a Flow trigger must all be met (Kestra's `timeWindow`). */
export type PreconditionTimeWindow =
  /** Consecutive windows of `windowMs` from midnight UTC, shifted by `advanceMs`. */
  | { readonly type: 'DURATION_WINDOW'; readonly windowMs: number; readonly advanceMs: number }
  /** A window of `windowMs` opened by the first precondition met. */
  | { readonly type: 'SLIDING_WINDOW'; readonly windowMs: number }
  /** From midnight UTC to the deadline (seconds of the day), every day. */
  | { readonly type: 'DAILY_TIME_DEADLINE'; readonly deadlineSecond: number }
  /** From `startSecond` to `endSecond` of the day (UTC), every day. */
  | { readonly type: 'DAILY_TIME_WINDOW'; readonly startSecond: number; readonly endSecond: number };
export interface FlowTriggerPreconditions {
  readonly id: string;
  readonly flows: readonly UpstreamFlowPrecondition[];
  readonly where: readonly ExecutionFilterPrecondition[];
  readonly timeWindow: PreconditionTimeWindow;
  /** Once all are met and the trigger fired, they must all be met again (default true). */
  readonly resetOnSuccess: boolean;
}
export interface FlowTrigger extends TriggerCommon {
  readonly kind: 'Flow';
  /** The upstream end states the trigger reacts to; default every terminal state. */
  readonly states: readonly string[];
  readonly conditions: readonly FlowTriggerCondition[];
  readonly preconditions?: FlowTriggerPreconditions;
}
export interface WebhookTrigger extends TriggerCommon {
  readonly kind: 'Webhook';
  readonly key: string;
}
/**
 * Kestra's `core.http.Trigger`: a worker calls `uri` every `interval` and the
 * flow starts when `responseCondition` (rendered with `response.statusCode`,
 * `response.body`, `response.headers`) holds.
 */
export interface HttpPollingTrigger extends TriggerCommon {
  readonly kind: 'HttpPolling';
  readonly uri: Template;
  readonly method: string;
  readonly headers?: Readonly<Record<string, Template>>;
  readonly body?: Template;
  readonly contentType?: Template;
  readonly intervalMs: number;
  readonly responseCondition?: Template;
  /** Disable the trigger once the last execution it started ended in one of these states. */
  readonly stopAfter?: readonly string[];
  /** Poll (and fire) even while an execution it started runs; default false. */
  readonly allowConcurrent?: boolean;
  /** Polled only at times that meet them (the Schedule's date and time conditions, read in UTC). */
  readonly conditions?: readonly ScheduleCondition[];
  /** Which worker queue runs the poll; else the flow's selector (as for a task). */
  readonly workerSelector?: WorkerSelectorSpec;
}
export type Trigger = ScheduleTrigger | FlowTrigger | WebhookTrigger | HttpPollingTrigger;

// ---- The flow --------------------------------------------------------------------

export interface Flow {
  readonly id: string;
  readonly namespace: string;
  readonly revision?: number;
  readonly description?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly inputs: readonly FlowInput[];
  readonly variables: Readonly<Record<string, TemplatedValue>>;
  readonly concurrency?: FlowConcurrency;
  readonly workerSelector?: WorkerSelectorSpec;
  /** The retry of a task that has none, and whose flowable parents have none (Kestra's flow `retry`). */
  readonly retry?: RetryPolicy;
  readonly sla?: readonly FlowSla[];
  readonly tasks: readonly Task[];
  readonly errors: readonly Task[];
  readonly finally: readonly Task[];
  readonly outputs: readonly FlowOutput[];
  readonly triggers: readonly Trigger[];
  readonly disabled: boolean;
}

/** One validation problem: where (a YAML path like `tasks[2].retry.maxAttempts`) and what. */
export interface FlowProblem {
  readonly path: string;
  readonly message: string;
  /** 1-based line in the YAML source, when known. */
  readonly line?: number;
  readonly column?: number;
}

export type ParseFlowResult =
  | {
      readonly ok: true;
      readonly flow: Flow;
      /** Deprecated spellings that were accepted. */ readonly warnings?: readonly FlowProblem[];
    }
  | { readonly ok: false; readonly problems: readonly FlowProblem[] };
