import { parseFlow, type ParseFlowResult } from '@lanner/model';
import { ParsedFlowCache } from './parsed-flow-cache';

// The cache's rules, with a parser that counts its calls: one parse per revision,
// a new revision parsed again, a bounded number of flows, and a forgotten flow re-read.

const source = (id: string, label: string) =>
  [
    `id: ${id}`,
    'namespace: company.team',
    `labels: { team: ${label} }`,
    'tasks:',
    '  - { id: hello, type: io.kestra.plugin.core.log.Log, message: hi }',
  ].join('\n');

function countingParser() {
  const parsed: string[] = [];
  return {
    parsed,
    parse: (text: string): Promise<ParseFlowResult> => {
      parsed.push(text);
      return Promise.resolve(parseFlow(text));
    },
  };
}

const labelOf = (result: ParseFlowResult) => (result.ok ? result.flow.labels : undefined);
const rev = (flowId: string, revision: number, tenantId = 'main') => ({ tenantId, namespace: 'company.team', flowId, revision });

describe('ParsedFlowCache', () => {
  it('parses a revision once, however many executions read it', async () => {
    const cache = new ParsedFlowCache();
    const parser = countingParser();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => cache.get(rev('hello', 1), source('hello', 'one'), parser.parse)),
    );
    expect(parser.parsed).toHaveLength(1);
    expect(results.map(labelOf)).toEqual(Array.from({ length: 20 }, () => ({ team: 'one' })));
  });

  it('parses a new revision again and holds only the latest one per flow', async () => {
    const cache = new ParsedFlowCache();
    const parser = countingParser();
    await cache.get(rev('hello', 1), source('hello', 'one'), parser.parse);
    const second = await cache.get(rev('hello', 2), source('hello', 'two'), parser.parse);
    expect(labelOf(second)).toEqual({ team: 'two' });
    expect(parser.parsed).toHaveLength(2);
    expect(cache.size).toBe(1);
    await cache.get(rev('hello', 2), source('hello', 'two'), parser.parse);
    expect(parser.parsed).toHaveLength(2);
  });

  it('keeps tenants apart', async () => {
    const cache = new ParsedFlowCache();
    const parser = countingParser();
    await cache.get(rev('hello', 1, 'main'), source('hello', 'main'), parser.parse);
    const other = await cache.get(rev('hello', 1, 'other'), source('hello', 'other'), parser.parse);
    expect(labelOf(other)).toEqual({ team: 'other' });
    expect(parser.parsed).toHaveLength(2);
  });

  it('holds at most its bound of flows, dropping the least recently used', async () => {
    const cache = new ParsedFlowCache(2);
    const parser = countingParser();
    await cache.get(rev('a', 1), source('a', 'a'), parser.parse);
    await cache.get(rev('b', 1), source('b', 'b'), parser.parse);
    await cache.get(rev('a', 1), source('a', 'a'), parser.parse); // a is now the most recent
    await cache.get(rev('c', 1), source('c', 'c'), parser.parse); // drops b
    expect(cache.size).toBe(2);
    expect(parser.parsed).toHaveLength(3);
    await cache.get(rev('a', 1), source('a', 'a'), parser.parse);
    expect(parser.parsed).toHaveLength(3);
    await cache.get(rev('b', 1), source('b', 'b'), parser.parse);
    expect(parser.parsed).toHaveLength(4);
  });

  it('reads a forgotten flow again', async () => {
    const cache = new ParsedFlowCache();
    const parser = countingParser();
    await cache.get(rev('hello', 1), source('hello', 'one'), parser.parse);
    cache.forget('main', 'company.team', 'hello');
    expect(cache.size).toBe(0);
    await cache.get(rev('hello', 1), source('hello', 'one'), parser.parse);
    expect(parser.parsed).toHaveLength(2);
  });

  it('does not remember a parse that failed', async () => {
    const cache = new ParsedFlowCache();
    const failing = () => Promise.reject(new Error('the flow parser thread stopped: exit code 1'));
    await expect(cache.get(rev('hello', 1), source('hello', 'one'), failing)).rejects.toThrow('parser thread stopped');
    const parser = countingParser();
    const result = await cache.get(rev('hello', 1), source('hello', 'one'), parser.parse);
    expect(labelOf(result)).toEqual({ team: 'one' });
    expect(parser.parsed).toHaveLength(1);
  });

  it('refuses a bound below one', () => {
    expect(() => new ParsedFlowCache(0)).toThrow('at least one flow');
  });
});
