export { login, logout, type LoginOptions, type LoginResult, type LogoutResult } from './login.js';
export { createHttpAuthFactory, type HttpAuth, type HttpAuthFactory, type McpOAuthOptions } from './http-auth.js';
export { StoredOAuthProvider, type LoginInteraction, type StoredOAuthProviderOptions } from './stored-provider.js';
export { OAuthTokenStore, defaultOAuthDir, loginFileName, type StoredLogin } from './token-store.js';
export { readOAuthEntry, hasStaticAuthorization, type OAuthEntry } from './oauth-config.js';
export { BearerTokenRequiredError, OAuthLoginRequiredError, OAuthMixUpError, OAuthRenewalFailedError, OAuthScopeRefusedError, isOAuthLoginRequired, type LoginReason, type LoginRequiredDetails } from '../errors/oauth.js';
export { startLoopbackReceiver, type LoopbackReceiver } from './loopback.js';
export { openInBrowser } from './open-browser.js';
