export * from './flow.types';
export { parseFlow, formatProblem, MAX_FLOW_SOURCE_BYTES, FLOW_ID_PATTERN, NAMESPACE_PATTERN } from './parse-flow';
export { coerceInputs, isTemplate } from './coerce-inputs';
export type { CoerceInputsResult, InputValue } from './coerce-inputs';
export { parseIsoDuration } from './iso-duration';
export { TRIGGER_TYPES, CONDITION_TYPES } from './task-type-names';
export { CORRELATION_ID_LABEL, SYSTEM_LABEL_PREFIX, SYSTEM_LABEL_REFUSAL, systemLabelKeys } from './system-labels';
