import { z } from 'zod';
import { InvalidRequest } from './api-errors';
import { jsonPath, parseWith } from './request-body';

describe('parseWith', () => {
  it('returns the parsed value when it matches', () => {
    expect(parseWith(z.object({ page: z.coerce.number() }), { page: '2' }, 'query')).toEqual({ page: 2 });
  });

  it('refuses a mismatch with every problem at its JSON path', () => {
    const schema = z.object({ labels: z.record(z.string(), z.string()), files: z.array(z.string()) });
    try {
      parseWith(schema, { labels: { team: 3 }, files: ['a', 4] }, 'body');
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidRequest);
      expect((error as InvalidRequest).problems.map((p) => p.path)).toEqual(['labels.team', 'files[1]']);
    }
  });

  it('names the whole value $', () => {
    expect(jsonPath([])).toBe('$');
  });
});
