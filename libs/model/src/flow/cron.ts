// A structural check of Unix cron expressions (5 fields, as Kestra's Schedule
// reads them by default), so a typo is reported when the flow is saved rather
// than when the scheduler first meets it. Evaluating the schedule is the
// scheduler's business.

const NICKNAMES = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

interface CronField {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  /** Quartz-style extras cron-utils accepts in this field (L, W, #, ?). */
  readonly extras: RegExp | undefined;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59, extras: undefined },
  { name: 'hour', min: 0, max: 23, extras: undefined },
  { name: 'day of month', min: 1, max: 31, extras: /^(\?|L|LW|\d{1,2}W)$/ },
  { name: 'month', min: 1, max: 12, names: MONTHS, extras: undefined },
  { name: 'day of week', min: 0, max: 7, names: DAYS, extras: /^(\?|L|[0-7]L|[0-7]#[1-5])$/ },
];

const SECONDS: CronField = { name: 'second', min: 0, max: 59, extras: undefined };

/** `undefined` when the expression is valid, else why it is not. `withSeconds`: 6 fields, seconds first. */
export function cronProblem(expression: string, withSeconds = false): string | undefined {
  const text = expression.trim();
  if (text.startsWith('@')) {
    return NICKNAMES.includes(text.toLowerCase())
      ? undefined
      : `unknown cron shortcut '${text}' (use one of ${NICKNAMES.join(', ')})`;
  }
  const parts = text.split(/\s+/);
  const fields = withSeconds ? [SECONDS, ...FIELDS] : FIELDS;
  if (parts.length !== fields.length) {
    return withSeconds
      ? 'must be a cron expression of 6 fields (withSeconds): second minute hour day-of-month month day-of-week'
      : 'must be a cron expression of 5 fields: minute hour day-of-month month day-of-week';
  }
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index];
    const problem = fieldProblem(parts[index].toUpperCase(), field);
    if (problem) return `${field.name} field '${parts[index]}': ${problem}`;
  }
  return undefined;
}

function fieldProblem(text: string, field: CronField): string | undefined {
  for (const part of text.split(',')) {
    if (field.extras?.test(part)) continue;
    const [range, step, ...rest] = part.split('/');
    if (rest.length > 0) return 'has more than one /';
    if (step !== undefined && !/^\d+$/.test(step)) return 'step must be a number';
    if (step !== undefined && Number(step) === 0) return 'step must be at least 1';
    if (range === '*') continue;
    const [from, to, ...more] = range.split('-');
    if (more.length > 0) return 'has more than one -';
    const start = fieldValue(from, field);
    if (start === undefined) return `must hold values from ${field.min} to ${field.max}`;
    if (to !== undefined) {
      const end = fieldValue(to, field);
      if (end === undefined) return `must hold values from ${field.min} to ${field.max}`;
      if (end < start) return 'range end is before its start';
    }
  }
  return undefined;
}

function fieldValue(text: string, field: CronField): number | undefined {
  if (/^\d{1,2}$/.test(text)) {
    const value = Number(text);
    return value >= field.min && value <= field.max ? value : undefined;
  }
  const named = field.names?.indexOf(text) ?? -1;
  if (named < 0) return undefined;
  return field.names === MONTHS ? named + 1 : named;
}
