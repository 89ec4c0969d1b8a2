// Which `type:` strings Lanner understands. Kestra renamed its core plugins
// (`io.kestra.core.tasks.*` -> `io.kestra.plugin.core.*`) and still reads the old
// names; so do we, mapping each to the current one.

import { TASK_TYPES } from './flow.types';

export const TRIGGER_TYPES = {
  Schedule: 'io.kestra.plugin.core.trigger.Schedule',
  Flow: 'io.kestra.plugin.core.trigger.Flow',
  Webhook: 'io.kestra.plugin.core.trigger.Webhook',
  HttpPolling: 'io.kestra.plugin.core.http.Trigger',
} as const;

export const CONDITION_TYPES = {
  ExecutionFlow: 'io.kestra.plugin.core.condition.ExecutionFlow',
  ExecutionStatus: 'io.kestra.plugin.core.condition.ExecutionStatus',
  ExecutionNamespace: 'io.kestra.plugin.core.condition.ExecutionNamespace',
  ExecutionLabels: 'io.kestra.plugin.core.condition.ExecutionLabels',
  ExecutionOutputs: 'io.kestra.plugin.core.condition.ExecutionOutputs',
  Expression: 'io.kestra.plugin.core.condition.Expression',
} as const;

/** Conditions a Schedule trigger accepts (they read the schedule's date). */
export const SCHEDULE_CONDITION_TYPES = {
  DayWeek: 'io.kestra.plugin.core.condition.DayWeek',
  DayWeekInMonth: 'io.kestra.plugin.core.condition.DayWeekInMonth',
  Weekend: 'io.kestra.plugin.core.condition.Weekend',
  DateTimeBetween: 'io.kestra.plugin.core.condition.DateTimeBetween',
  TimeBetween: 'io.kestra.plugin.core.condition.TimeBetween',
  PublicHoliday: 'io.kestra.plugin.core.condition.PublicHoliday',
} as const;

/** Kestra's older names of the PublicHoliday condition. */
export const PUBLIC_HOLIDAY_ALIASES: readonly string[] = [
  'io.kestra.plugin.core.condition.PublicHolidayCondition',
  'io.kestra.core.models.conditions.types.PublicHolidayCondition',
];

/** Legacy task type name -> current name. */
export const LEGACY_TASK_TYPES: Readonly<Record<string, string>> = {
  'io.kestra.core.tasks.flows.Sequential': TASK_TYPES.Sequential,
  'io.kestra.core.tasks.flows.Parallel': TASK_TYPES.Parallel,
  'io.kestra.core.tasks.flows.If': TASK_TYPES.If,
  'io.kestra.core.tasks.flows.Switch': TASK_TYPES.Switch,
  'io.kestra.core.tasks.flows.ForEach': TASK_TYPES.ForEach,
  'io.kestra.core.tasks.flows.EachSequential': TASK_TYPES.EachSequential,
  'io.kestra.core.tasks.flows.EachParallel': TASK_TYPES.EachParallel,
  'io.kestra.core.tasks.flows.Dag': TASK_TYPES.Dag,
  'io.kestra.core.tasks.flows.AllowFailure': TASK_TYPES.AllowFailure,
  'io.kestra.core.tasks.flows.WaitFor': TASK_TYPES.WaitFor,
  'io.kestra.core.tasks.flows.Pause': TASK_TYPES.Pause,
  'io.kestra.core.tasks.flows.Subflow': TASK_TYPES.Subflow,
  'io.kestra.core.tasks.executions.Fail': TASK_TYPES.Fail,
  'io.kestra.core.tasks.executions.Labels': TASK_TYPES.Labels,
  'io.kestra.core.tasks.log.Log': TASK_TYPES.Log,
  'io.kestra.core.tasks.debugs.Echo': TASK_TYPES.Echo,
  'io.kestra.core.tasks.debugs.Return': TASK_TYPES.Return,
  'io.kestra.core.tasks.outputs.OutputValues': TASK_TYPES.OutputValues,
  'io.kestra.core.tasks.flows.Sleep': TASK_TYPES.Sleep,
  'io.kestra.plugin.fs.http.Request': TASK_TYPES.HttpRequest,
  'io.kestra.core.tasks.storages.Concat': TASK_TYPES.StorageConcat,
  'io.kestra.core.tasks.storages.Size': TASK_TYPES.StorageSize,
  'io.kestra.core.tasks.storages.Delete': TASK_TYPES.StorageDelete,
  'io.kestra.core.tasks.storages.Split': TASK_TYPES.StorageSplit,
  'io.kestra.core.tasks.storages.PurgeExecution': TASK_TYPES.PurgeCurrentExecutionFiles,
  'io.kestra.core.tasks.storages.LocalFiles': TASK_TYPES.LocalFiles,
  'io.kestra.plugin.core.storage.PurgeExecution': TASK_TYPES.PurgeCurrentExecutionFiles,
};

/** Legacy trigger type name -> current name. */
export const LEGACY_TRIGGER_TYPES: Readonly<Record<string, string>> = {
  'io.kestra.core.models.triggers.types.Schedule': TRIGGER_TYPES.Schedule,
  'io.kestra.core.models.triggers.types.Flow': TRIGGER_TYPES.Flow,
  'io.kestra.core.models.triggers.types.Webhook': TRIGGER_TYPES.Webhook,
  'io.kestra.plugin.fs.http.Trigger': TRIGGER_TYPES.HttpPolling,
};

/** Older and alternative condition names -> current name. */
export const LEGACY_CONDITION_TYPES: Readonly<Record<string, string>> = {
  'io.kestra.plugin.core.condition.ExecutionFlowCondition': CONDITION_TYPES.ExecutionFlow,
  'io.kestra.plugin.core.condition.ExecutionStatusCondition': CONDITION_TYPES.ExecutionStatus,
  'io.kestra.plugin.core.condition.ExecutionNamespaceCondition': CONDITION_TYPES.ExecutionNamespace,
  'io.kestra.plugin.core.condition.ExpressionCondition': CONDITION_TYPES.Expression,
  'io.kestra.core.models.conditions.types.ExecutionFlowCondition': CONDITION_TYPES.ExecutionFlow,
  'io.kestra.core.models.conditions.types.ExecutionStatusCondition': CONDITION_TYPES.ExecutionStatus,
  'io.kestra.core.models.conditions.types.ExecutionNamespaceCondition': CONDITION_TYPES.ExecutionNamespace,
  'io.kestra.core.models.conditions.types.VariableCondition': CONDITION_TYPES.Expression,
};
