/**
 * Registration tokens in the declarative setup. A token value is a secret: it
 * is wrapped as soon as it is read so that it cannot end up in a log line, an
 * error message or a JSON dump by accident; only `reveal()` gives it out (to
 * the code that hashes it for storage).
 */
import { RedactedSecret } from '@lanner/model';

/**
 * The format of a registration token: 43 to 512 characters of the URL-safe
 * base64 alphabet (A-Z, a-z, 0-9, '-', '_'), no padding. 43 characters carry
 * 258 bits, so the minimum length guarantees the 256 random bits WORKERS.md
 * requires (32 random bytes encoded as base64url are exactly 43 characters).
 */
export const REGISTRATION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43,512}$/;
export const REGISTRATION_TOKEN_FORMAT = '43 to 512 URL-safe base64 characters (A-Z, a-z, 0-9, - and _)';

export class RegistrationTokenSecret extends RedactedSecret {
  constructor(value: string) {
    super(value, 'registration token');
  }
}

export function isWellFormedRegistrationToken(value: string): boolean {
  return REGISTRATION_TOKEN_PATTERN.test(value);
}

/** Where a declared token comes from; safe to log (a file path, never a value). */
export type RegistrationTokenSource = { kind: 'file'; path: string } | { kind: 'config' };

/** Reads token files for the validator; apps implement it over the file system. */
export interface TokenFileReader {
  /**
   * Reads the whole file. Returns `readable: false` with a short reason
   * (e.g. `ENOENT`, `EACCES`) instead of throwing; the reason is shown to the
   * operator, so it must never contain the file's content.
   */
  read(path: string): TokenFileRead;
}
export type TokenFileRead = { readable: true; content: string } | { readable: false; reason: string };

/** Finds whether a token is already registered; apps implement it over the stored token hashes. */
export interface RegisteredTokenLookup {
  /** The id of the worker group that owns this token, or undefined when it is unknown. */
  groupOwning(token: RegistrationTokenSecret): string | undefined;
}
