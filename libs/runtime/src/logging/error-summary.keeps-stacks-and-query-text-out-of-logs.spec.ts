import { errorSummary } from './error-summary';

describe('errorSummary: what a log line says of an error', () => {
  it('keeps the kind and the first line, never the stack or the lines after it', () => {
    const error = new TypeError(
      'Cannot read properties of undefined\n  SELECT * FROM flows WHERE token = $1\n  at /srv/lanner/libs/x.ts:10:5',
    );
    const summary = errorSummary(error);
    expect(summary).toEqual({ error: 'TypeError', reason: 'Cannot read properties of undefined' });
    expect(JSON.stringify(summary)).not.toContain('at ');
  });

  it('cuts a long message and names a thrown non-error by its type', () => {
    expect(errorSummary(new Error('x'.repeat(1000))).reason).toHaveLength(301);
    expect(errorSummary('plain text')).toEqual({ error: 'string', reason: 'plain text' });
  });
});
