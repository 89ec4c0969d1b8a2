/**
 * Labels whose key starts with `system.` are Lanner's, as in Kestra: set by Lanner on
 * executions, never by a flow or a user. `system.correlationId` is set on every execution
 * (its own id) and carried to its subflow children and retry executions, so every
 * execution started by one run shares it.
 */
export const SYSTEM_LABEL_PREFIX = 'system.';
export const CORRELATION_ID_LABEL = 'system.correlationId';

/** The keys of `labels` that only Lanner may set. */
export function systemLabelKeys(labels: Readonly<Record<string, string>>): string[] {
  return Object.keys(labels).filter((key) => key.startsWith(SYSTEM_LABEL_PREFIX));
}

export const SYSTEM_LABEL_REFUSAL = 'labels starting with system. are set by Lanner, not by a flow or a user';
