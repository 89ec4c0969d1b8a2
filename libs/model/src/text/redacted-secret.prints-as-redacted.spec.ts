import { inspect } from 'node:util';
import { RedactedSecret } from './redacted-secret';

describe('a secret read from configuration', () => {
  const secret = new RedactedSecret('s3cr3t-value', 'password');

  it('prints as redacted in text, JSON and inspection, and gives its value out only through reveal()', () => {
    expect(`${secret}`).toBe('[redacted password]');
    expect(JSON.stringify({ secret })).toBe('{"secret":"[redacted password]"}');
    expect(inspect(secret)).not.toContain('s3cr3t-value');
    expect(secret.reveal()).toBe('s3cr3t-value');
  });

  it('compares by value without giving it out', () => {
    expect(secret.sameAs(new RedactedSecret('s3cr3t-value', 'password'))).toBe(true);
    expect(secret.sameAs(new RedactedSecret('other', 'password'))).toBe(false);
  });
});
