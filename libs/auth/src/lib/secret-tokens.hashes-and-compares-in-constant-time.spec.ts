import { bearerToken, generateSecretToken, hashToken, sameTokenHash } from './secret-tokens';

describe('secret tokens', () => {
  it('generates 256-bit URL-safe tokens that never repeat', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateSecretToken()));
    expect(tokens.size).toBe(1000);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('stores a token only as its SHA-256 hex digest', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('compares digests: equal, different, and different lengths', () => {
    const digest = hashToken('token-a');
    expect(sameTokenHash(digest, hashToken('token-a'))).toBe(true);
    expect(sameTokenHash(digest, hashToken('token-b'))).toBe(false);
    expect(sameTokenHash(digest, digest.slice(0, 32))).toBe(false);
    expect(sameTokenHash('', '')).toBe(false);
  });
});

describe('bearerToken', () => {
  it('reads the token of a Bearer header, whatever the case of the scheme', () => {
    expect(bearerToken('Bearer abc.def-123')).toBe('abc.def-123');
    expect(bearerToken('bearer abc')).toBe('abc');
  });

  it('has no token for a missing header, another scheme or an empty token', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(bearerToken('Bearer ')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
  });
});
