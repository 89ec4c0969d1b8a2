export { TOKEN_BYTES, bearerToken, generateSecretToken, hashToken, sameTokenHash } from './lib/secret-tokens';
