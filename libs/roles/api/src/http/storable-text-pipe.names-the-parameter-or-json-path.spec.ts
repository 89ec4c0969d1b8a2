import { InvalidRequest } from './api-errors';
import { StorableTextPipe } from './storable-text.pipe';

function refusal(run: () => unknown): InvalidRequest {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidRequest) return error;
    throw error;
  }
  throw new Error('the pipe let the value through');
}

describe('StorableTextPipe', () => {
  const pipe = new StorableTextPipe();

  it('names a path parameter, a query parameter and a JSON path', () => {
    const param = refusal(() => pipe.transform('ab\u0000', { type: 'param', data: 'namespace' }));
    expect(param.message).toBe('The path holds text that cannot be accepted');
    expect(param.problems).toEqual([{ path: 'namespace', message: 'contains a NUL character (U+0000) at character 3' }]);
    expect(refusal(() => pipe.transform({ q: 'ok', flowId: '\ud800' }, { type: 'query' })).problems).toEqual([
      { path: 'flowId', message: expect.stringContaining('lone surrogate') },
    ]);
    expect(refusal(() => pipe.transform({ inputs: { who: ['x', 'a\u0000'] } }, { type: 'body' })).problems).toEqual([
      { path: 'inputs.who[1]', message: expect.any(String) },
    ]);
  });

  it('passes storable values and other arguments through unchanged', () => {
    const body = { inputs: { who: 'world 😀' }, labels: { team: 'data' } };
    expect(pipe.transform(body, { type: 'body' })).toBe(body);
    expect(pipe.transform('main', { type: 'param', data: 'tenant' })).toBe('main');
    expect(pipe.transform('\u0000', { type: 'custom' })).toBe('\u0000');
  });
});
