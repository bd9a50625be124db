/** The team gateway's parts that do not depend on serve's transport; `serve --http` builds on them. Not exported from the package root yet. */
export { digestOf, findTokenOwner, parseTokenDigest, TokenDigest } from './bearer-token.js';
export {
  DEFAULT_ALGORITHMS,
  loadGatewayFile,
  parseGatewayConfig,
  type AccessRules,
  type GatewayConfig,
  type GatewayFileResult,
  type GatewayIdentity,
  type GatewayOAuth,
} from './gateway-file.js';
export { watchGatewayFile, type GatewayFileWatcher, type WatchGatewayFileOptions } from './watch-gateway-file.js';
export { createAuthenticator, type Authenticate, type AuthenticatedIdentity, type Authentication } from './authenticate.js';
export { createJwtVerifier, type JwtVerdict, type JwtVerifier, type JwtVerifierOptions } from './jwt-verifier.js';
export {
  bearerChallenge,
  metadataPaths,
  metadataUrl,
  protectedResourceMetadata,
  type ChallengeError,
  type ProtectedResourceMetadata,
} from './resource-metadata.js';
export { policyFor, type IdentityPolicy } from './identity-policy.js';
export { RateLimiter, rateLimitText, type RateLimiterOptions, type RateVerdict } from './rate-limit.js';
export {
  audited,
  AuditLog,
  fileSink,
  openAuditLog,
  streamSink,
  toolOutcome,
  type AuditEntry,
  type AuditLogOptions,
  type AuditOutcome,
  type AuditSink,
} from './audit-log.js';
export {
  DEFAULT_SESSION_TTL_MS,
  loadSessionKeys,
  MAX_SESSION_ID_LENGTH,
  openSession,
  parseSessionKeys,
  sealSession,
  type LegacySession,
  type OpenedSession,
  type SessionKeys,
} from './sealed-session.js';
