/** `mcp-statechart/oauth`: OAuth for remote servers — logging in once, stored tokens, and the HTTP auth the manager uses. api/oauth.api.md is the report of this surface. */
export { login, logout, type LoginOptions, type LoginResult, type LogoutResult } from '../auth/login.js';
export { createHttpAuthFactory, type HttpAuth, type HttpAuthFactory, type McpOAuthOptions } from '../auth/http-auth.js';
export { StoredOAuthProvider, type LoginInteraction, type StoredOAuthProviderOptions } from '../auth/stored-provider.js';
export { OAuthTokenStore, defaultOAuthDir, type StoredLogin } from '../auth/token-store.js';
export { BearerTokenRequiredError, OAuthLoginRequiredError, OAuthMixUpError, OAuthRegistrationUnreadableError, OAuthRenewalFailedError, OAuthScopeRefusedError, isOAuthLoginRequired, type LoginReason, type LoginRequiredDetails } from '../errors/oauth.js';
