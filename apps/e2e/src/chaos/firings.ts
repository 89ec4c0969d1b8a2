// What the chaos run proves about the schedulers: a schedule that fires every second for
// the whole run (while the driver kills schedulers among the rest) fired each due date
// once. Computed from the executions the schedule created (their `trigger.date`).

/** One execution a Schedule trigger created. */
export interface Firing {
  readonly executionId: string;
  /** `trigger.date` (epoch ms): the due date it stands for. */
  readonly dateMs: number;
}

export interface FiringWindow {
  /** When the scheduled flow was created: its first date is the first cron date after the first evaluation. */
  readonly createdAtMs: number;
  /** When it was deleted (its trigger row goes in the same transaction): nothing fires after. */
  readonly deletedAtMs: number;
  /** The cron's period (every second: 1000). */
  readonly periodMs: number;
  /**
   * How far the first date may trail the creation, and the last date the deletion: a new
   * schedule fires from the date after its first evaluation, and a loop running behind on a
   * loaded machine never fires the dates still due when the row was deleted.
   */
  readonly edgeMs: number;
}

export interface FiringFindings {
  readonly executions: number;
  readonly firstMs?: number;
  readonly lastMs?: number;
  /** Dates with more than one execution: `<date> x<n>`. */
  readonly duplicates: readonly string[];
  /** Due dates between the first and the last with no execution. */
  readonly missing: readonly string[];
  /** First date minus the creation, and the deletion minus the last date (ms). */
  readonly startEdgeMs?: number;
  readonly endEdgeMs?: number;
  /** The edges beyond `edgeMs`: dates missing at the start or the end of the flow's life. */
  readonly edgesTooWide: readonly string[];
}

const iso = (ms: number) => new Date(ms).toISOString();

export function analyseFirings(firings: readonly Firing[], window: FiringWindow): FiringFindings {
  const perDate = new Map<number, number>();
  for (const firing of firings) perDate.set(firing.dateMs, (perDate.get(firing.dateMs) ?? 0) + 1);
  const duplicates = [...perDate.entries()]
    .filter(([, count]) => count > 1)
    .sort(([a], [b]) => a - b)
    .map(([date, count]) => `${iso(date)} x${count}`);
  if (perDate.size === 0) {
    return {
      executions: 0,
      duplicates,
      missing: [],
      edgesTooWide: [`no date fired between ${iso(window.createdAtMs)} and ${iso(window.deletedAtMs)}`],
    };
  }
  const dates = [...perDate.keys()].sort((a, b) => a - b);
  const firstMs = dates[0];
  const lastMs = dates[dates.length - 1];
  const missing: string[] = [];
  for (let date = firstMs; date <= lastMs; date += window.periodMs) if (!perDate.has(date)) missing.push(iso(date));
  const startEdgeMs = firstMs - window.createdAtMs;
  const endEdgeMs = window.deletedAtMs - lastMs;
  const edgesTooWide: string[] = [];
  if (startEdgeMs > window.edgeMs || startEdgeMs < 0)
    edgesTooWide.push(`first date ${iso(firstMs)} is ${startEdgeMs} ms after the flow was created`);
  if (endEdgeMs > window.edgeMs || endEdgeMs < 0)
    edgesTooWide.push(`last date ${iso(lastMs)} is ${endEdgeMs} ms before the flow was deleted`);
  return { executions: firings.length, firstMs, lastMs, duplicates, missing, startEdgeMs, endEdgeMs, edgesTooWide };
}

/** Dates fired twice, dates missing between the first and the last, and edges too wide. */
export function firingProblems(findings: FiringFindings): number {
  return findings.duplicates.length + findings.missing.length + findings.edgesTooWide.length;
}

export function formatFirings(findings: FiringFindings): string[] {
  const seconds = (ms: number | undefined) => (ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);
  const span =
    findings.firstMs !== undefined && findings.lastMs !== undefined
      ? ` (dates ${iso(findings.firstMs)} .. ${iso(findings.lastMs)})`
      : '';
  return [
    `schedule every second: ${findings.executions} executions${span}`,
    `  dates fired twice: ${findings.duplicates.length}${findings.duplicates.length ? ` ${findings.duplicates.slice(0, 10).join(', ')}` : ''}`,
    `  dates missing between the first and the last: ${findings.missing.length}${findings.missing.length ? ` ${findings.missing.slice(0, 10).join(', ')}` : ''}`,
    `  edges: first date ${seconds(findings.startEdgeMs)} after the flow was created, last ${seconds(findings.endEdgeMs)} before it was deleted${findings.edgesTooWide.length ? `; TOO WIDE: ${findings.edgesTooWide.join('; ')}` : ''}`,
  ];
}
