export { TOKEN_BYTES, bearerToken, generateSecretToken, hashToken, sameTokenHash } from './lib/secret-tokens';
export { MIN_SIGNING_KEY_BYTES, WeakSigningKey, signingKeyFrom, type SigningKey } from './lib/signing-key';
export {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_ISSUER,
  AccessTokenRejected,
  WorkerAccessTokens,
  type AccessTokenProblem,
  type WorkerIdentity,
} from './lib/worker-access-tokens';
export {
  CredentialRejected,
  CredentialStoreUnavailable,
  InvalidCredentialRequest,
  MAX_WORKER_NAME_LENGTH,
  WorkerCredentialIssuer,
  type CredentialRejection,
  type IssuedWorkerCredentials,
  type NewRefreshToken,
  type NewWorker,
  type RefreshTokenConsumption,
  type StoredRefreshToken,
  type StoredRegistrationToken,
  type WorkerCredentialStore,
} from './lib/worker-credential-issuer';
export { WORKER_JWT_STRATEGY, workerJwtStrategy } from './lib/worker-jwt.strategy';
export {
  LoginLocked,
  LoginRejected,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  SessionRejected,
  USER_TOKEN_AUDIENCE,
  UserAccessTokens,
  UserSessionIssuer,
  WeakPassword,
  assertAcceptablePassword,
  hashPassword,
  verifyPassword,
  type StoredLoginUser,
  type UserIdentity,
  type UserRefreshOutcome,
  type UserSession,
  type UserSessionOptions,
  type UserSessionStore,
} from './lib/user-sessions';
