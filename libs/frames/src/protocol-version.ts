import type { ProtocolVersion } from './generated/lanner/worker/v1/controller';

/**
 * The worker stream protocol this build speaks. Bump MINOR when proto/ only
 * gains fields or frames (older peers ignore them); bump MAJOR, and the proto
 * package (lanner.worker.v2), when a change would be misread by an older peer.
 */
export const PROTOCOL_VERSION: Readonly<ProtocolVersion> = Object.freeze({ major: 1, minor: 2 });

export type ProtocolVersionCheck = { compatible: true; peer: ProtocolVersion } | { compatible: false; reason: string };

export function formatProtocolVersion(version: ProtocolVersion): string {
  return `${version.major}.${version.minor}`;
}

/**
 * Decides whether a peer's protocol version (from a Hello or a Welcome) can be
 * talked to. Same major: compatible, whatever the minors. A missing version is
 * refused too: in proto3 an unset version reads as 0.0, which no release sends.
 * The reason is written for the operator reading the peer's log.
 */
export function checkPeerProtocolVersion(
  peer: ProtocolVersion | undefined,
  own: ProtocolVersion = PROTOCOL_VERSION,
): ProtocolVersionCheck {
  if (peer === undefined || (peer.major === 0 && peer.minor === 0)) {
    return {
      compatible: false,
      reason: `the peer sent no protocol version; this side speaks protocol ${formatProtocolVersion(own)} and needs the version in the first frame`,
    };
  }
  if (peer.major !== own.major) {
    const olderSide = peer.major < own.major ? 'the peer' : 'this side';
    return {
      compatible: false,
      reason:
        `protocol ${formatProtocolVersion(peer)} is incompatible with protocol ${formatProtocolVersion(own)} spoken here ` +
        `(major versions differ); upgrade ${olderSide} so workers and controllers share major version ${Math.max(peer.major, own.major)}`,
    };
  }
  return { compatible: true, peer: { major: peer.major, minor: peer.minor } };
}
