/**
 * The value of the sample of `name` whose labels include all of `labels`, read
 * from a Prometheus text exposition (what GET /metrics returns); undefined when
 * there is none.
 */
export function metricSample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) return Number(line.split(' ').pop());
  }
  return undefined;
}
