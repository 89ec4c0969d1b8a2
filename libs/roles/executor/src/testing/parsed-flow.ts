import { parseFlow, type Flow } from '@lanner/model';

/** A flow a spec writes out as YAML and knows to be valid: a problem fails the spec, naming it. */
export function parsedFlow(yaml: string): Flow {
  const parsed = parseFlow(yaml);
  if (!parsed.ok) throw new Error(`test flow does not parse: ${JSON.stringify(parsed.problems)}`);
  return parsed.flow;
}
