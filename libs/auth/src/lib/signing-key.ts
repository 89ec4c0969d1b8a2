import { inspect } from 'node:util';

/** The smallest HS256 key Lanner accepts: 256 bits, the size of the hash. */
export const MIN_SIGNING_KEY_BYTES = 32;

/** The configured signing key is too short; the message names where it came from, never its value. */
export class WeakSigningKey extends Error {
  constructor(readonly source: string) {
    super(`${source}: the JWT signing key must be at least ${MIN_SIGNING_KEY_BYTES} bytes`);
    this.name = 'WeakSigningKey';
  }
}

/** The key that signs and verifies worker access tokens. Opaque: it prints and serialises as redacted. */
export interface SigningKey {
  readonly bytes: Buffer;
}

class RedactedSigningKey implements SigningKey {
  readonly #bytes: Buffer;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  get bytes(): Buffer {
    return this.#bytes;
  }

  // A key that ends up in a log line or an error shows this instead of its bytes.
  toJSON(): string {
    return '[signing key]';
  }

  toString(): string {
    return '[signing key]';
  }

  [inspect.custom](): string {
    return '[signing key]';
  }
}

/**
 * The signing key from its configured text (UTF-8), refused when shorter than
 * 32 bytes. `source` says where the value came from (a config variable, a
 * file) and is what the error names.
 */
export function signingKeyFrom(value: string, source: string): SigningKey {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length < MIN_SIGNING_KEY_BYTES) throw new WeakSigningKey(source);
  return new RedactedSigningKey(bytes);
}
