import { inspect } from 'node:util';
import { signingKeyFrom, WeakSigningKey } from './signing-key';

describe('signing key', () => {
  it('refuses a key of 31 bytes, naming the source and never the value', () => {
    const value = 'k'.repeat(31);
    let thrown: unknown;
    try {
      signingKeyFrom(value, 'LANNER_JWT_SIGNING_KEY');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WeakSigningKey);
    expect((thrown as Error).message).toBe('LANNER_JWT_SIGNING_KEY: the JWT signing key must be at least 32 bytes');
    expect((thrown as Error).message).not.toContain(value);
  });

  it('accepts a key of exactly 32 bytes', () => {
    expect(signingKeyFrom('k'.repeat(32), 'LANNER_JWT_SIGNING_KEY').bytes).toHaveLength(32);
  });

  it('counts bytes, not characters: 16 two-byte characters are enough, 15 are not', () => {
    expect(signingKeyFrom('é'.repeat(16), 'key file').bytes).toHaveLength(32);
    expect(() => signingKeyFrom('é'.repeat(15), 'key file')).toThrow('key file: the JWT signing key must be at least 32 bytes');
  });

  it('never shows its bytes when logged or serialised', () => {
    const value = 'a-signing-key-that-must-never-be-printed';
    const key = signingKeyFrom(value, 'LANNER_JWT_SIGNING_KEY');
    expect(JSON.stringify({ key })).not.toContain(value);
    expect(inspect(key)).not.toContain(value);
    expect(`${String(key)}`).not.toContain(value);
  });
});
