import { bearerToken, sha256Hex } from './api-token-auth';

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

describe('sha256Hex', () => {
  it('is the lowercase hex SHA-256 the repository stores', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
