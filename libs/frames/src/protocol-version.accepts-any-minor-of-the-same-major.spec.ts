import { checkPeerProtocolVersion, formatProtocolVersion, PROTOCOL_VERSION } from './protocol-version';

describe('a peer speaking the same major protocol version', () => {
  it.each([
    ['the same version', { major: 1, minor: 0 }],
    ['a newer minor (it only adds fields we ignore)', { major: 1, minor: 7 }],
  ])('is accepted with %s', (_scenario, peer) => {
    expect(checkPeerProtocolVersion(peer, { major: 1, minor: 0 })).toEqual({ compatible: true, peer });
  });

  it('is accepted with an older minor (we must not need what it lacks)', () => {
    expect(checkPeerProtocolVersion({ major: 1, minor: 2 }, { major: 1, minor: 5 }).compatible).toBe(true);
  });

  it('is what this build speaks by default', () => {
    expect(checkPeerProtocolVersion({ ...PROTOCOL_VERSION }).compatible).toBe(true);
    expect(formatProtocolVersion(PROTOCOL_VERSION)).toBe('1.2');
  });
});
