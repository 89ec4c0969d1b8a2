import { checkPeerProtocolVersion, PROTOCOL_VERSION } from './protocol-version';

describe('a peer whose protocol version cannot be talked to', () => {
  it('is refused when its major is newer, and the reason says which side to upgrade', () => {
    const check = checkPeerProtocolVersion({ major: 2, minor: 0 }, { major: 1, minor: 4 });

    expect(check).toEqual({
      compatible: false,
      reason:
        'protocol 2.0 is incompatible with protocol 1.4 spoken here (major versions differ); ' +
        'upgrade this side so workers and controllers share major version 2',
    });
  });

  it('is refused when its major is older, asking to upgrade the peer', () => {
    const check = checkPeerProtocolVersion({ major: 1, minor: 9 }, { major: 2, minor: 0 });

    expect(check.compatible).toBe(false);
    expect(check.compatible === false && check.reason).toContain('upgrade the peer');
  });

  it('is refused when its Hello carries no version at all', () => {
    for (const missing of [undefined, { major: 0, minor: 0 }]) {
      const check = checkPeerProtocolVersion(missing);

      expect(check).toEqual({
        compatible: false,
        reason: `the peer sent no protocol version; this side speaks protocol ${PROTOCOL_VERSION.major}.${PROTOCOL_VERSION.minor} and needs the version in the first frame`,
      });
    }
  });
});
