/**
 * Raw 2026-07-28 requests to serve's `/mcp`, for tests that check the HTTP itself (status, headers,
 * a stream's first bytes) where an SDK client would hide it: no handshake, each request carries
 * who asks in its `_meta` envelope.
 */

/** The `_meta` envelope a 2026-07-28 request carries in place of an initialize handshake. */
export function modernMeta(clientName: string, clientCapabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
  };
}

export interface ModernPost {
  method: string;
  /** The `Mcp-Name` header (a tool's name for `tools/call`); none when not given. */
  name?: string;
  /** The request's params, without `_meta` (added here). */
  params?: Record<string, unknown>;
  id?: string | number;
  /** A gateway identity's bearer token; no Authorization header when not given. */
  token?: string;
  clientName?: string;
  clientCapabilities?: Record<string, unknown>;
  /** Bounds the request; 30 s when not given. */
  signal?: AbortSignal;
}

/** POSTs one 2026-07-28 JSON-RPC request to `url`; the response, its body unread. */
export function postModern(url: string, request: ModernPost): Promise<Response> {
  const { method, name, params = {}, id = 1, token, clientName = 'raw-host', clientCapabilities, signal = AbortSignal.timeout(30_000) } = request;
  return fetch(url, {
    method: 'POST',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta(clientName, clientCapabilities) } }),
    signal,
  });
}

let nextToolCallId = 1;

/** A 2026-07-28 `tools/call` of `name`, as a host that can show forms sends it: its HTTP status and, when 2xx, its JSON-RPC answer. */
export async function modernToolCall(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ status: number; body?: { result?: Record<string, unknown>; error?: { message: string } } }> {
  const response = await postModern(url, { method: 'tools/call', name, params: { name, arguments: args }, id: nextToolCallId++, token, clientCapabilities: { elicitation: { form: {} } } });
  return { status: response.status, body: response.ok ? await response.json() : undefined };
}
