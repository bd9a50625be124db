/**
 * The semantic conventions' value for a method, name or code outside the known set. Hosts choose
 * the names they send, servers the error codes they answer with: recorded as they come, each new
 * one would be a new series kept for the life of the process (a million made-up names or codes
 * would fill memory and every scrape).
 */
export const OTHER_VALUE = '_OTHER';

/**
 * The error codes a metric names: JSON-RPC's own (-32700, -32600…-32603), the ones MCP and its
 * SDKs define (-32000 connection closed or server error, -32001 request timeout, -32002 resource
 * not found, -32020…-32022 header mismatch, missing client capability, unsupported protocol
 * version, -32042 URL elicitation required) and ours (-32099, a task handed off).
 */
const KNOWN_ERROR_CODES: ReadonlySet<number> = new Set([
  -32700, -32600, -32601, -32602, -32603, -32000, -32001, -32002, -32020, -32021, -32022, -32042, -32099,
]);

/** An error code as `error.type` / `rpc.response.status_code`: itself when known, else `_OTHER`. */
export function boundedErrorCode(code: unknown): string {
  return typeof code === 'number' && KNOWN_ERROR_CODES.has(code) ? String(code) : OTHER_VALUE;
}

/**
 * The most characters of a string a peer chose (a method, prompt or tool name, a request id) that
 * a span or a histogram carries: a peer could send megabytes, and every exported span would carry them.
 */
const MAX_PEER_STRING_LENGTH = 256;

/**
 * A string a peer chose (a host's method or prompt name, a server's tool name), as an attribute
 * or a span name: cut to a bounded length, control characters replaced, so a scrape or a span
 * viewer on a terminal never receives a raw ESC or BEL.
 */
export function boundedString(value: string): string {
  const cut = value.length > MAX_PEER_STRING_LENGTH ? `${value.slice(0, MAX_PEER_STRING_LENGTH)}…` : value;
  return cut.replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
}
