/**
 * The logger name of the log messages this client adds to a server's own (a warning counting
 * dropped ones): they come from us, not the server. A module of its own so that what adds them
 * (log-flood-limit.ts, which wraps the stdio transport, and session-watch.ts, which the testing
 * kit's scripted registry uses) names it without importing the other.
 */
export const CLIENT_LOGGER = 'mcp-statechart';
