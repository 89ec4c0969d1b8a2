import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Random bytes in every token Lanner issues (registration, refresh, API tokens): 256 bits. */
export const TOKEN_BYTES = 32;

/** A new opaque secret: 32 random bytes as URL-safe base64 without padding (43 characters). */
export function generateSecretToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** The only form in which a token is stored: its SHA-256 digest in lowercase hex. */
export function hashToken(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests; false (not an exception) when their lengths differ. */
export function sameTokenHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** The token of an `Authorization: Bearer <token>` header (HTTP) or metadata entry (gRPC), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
