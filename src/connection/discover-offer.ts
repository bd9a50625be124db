import { SUPPORTED_PROTOCOL_VERSIONS, UnsupportedProtocolVersionError, type RequestId, type Transport } from '@modelcontextprotocol/client';
import { MODERN_REVISION, versionsApart } from './era-probe.js';
import { wrapEachHandler } from './handler-wrapping.js';

/**
 * A `server/discover` answer listing none of this client's versions ends the connect there,
 * naming both lists, on every transport. Over Streamable HTTP the SDK probes in place and, under
 * "auto", takes such an answer for a legacy server and goes on with `initialize`; but a server
 * that answers `server/discover` speaks 2026-07-28 or later, and the spec's versioning page has a
 * client that shares no version with it surface an error rather than fall back (our stdio probe
 * does so). Here `initialize` is not sent after such an answer: its send fails with the refusal.
 * An answer the SDK cannot read (no list) is left to the SDK, which falls back.
 */
export function refuseInitializeAfterForeignOffer(transport: Transport): void {
  let discoverId: RequestId | undefined;
  let refusal: UnsupportedProtocolVersionError | undefined;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && 'id' in message) {
      if (message.method === 'server/discover') discoverId = message.id;
      if (message.method === 'initialize' && refusal) return Promise.reject(refusal);
    }
    return send(message, options);
  };
  wrapEachHandler(transport, 'onmessage', (deliver) => (message, extra) => {
    if (discoverId !== undefined && 'result' in message && message.id === discoverId) refusal = foreignOffer(message.result);
    deliver(message, extra);
  });
}

/** The refusal to fail with when a `server/discover` result lists versions, none of them ours. */
function foreignOffer(result: unknown): UnsupportedProtocolVersionError | undefined {
  const supported: unknown = typeof result === 'object' && result !== null ? (result as { supportedVersions?: unknown }).supportedVersions : undefined;
  if (!Array.isArray(supported) || supported.length === 0 || !supported.every((version) => typeof version === 'string')) return undefined;
  const ours = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];
  if (supported.some((version) => ours.includes(version))) return undefined;
  return versionsApart(new UnsupportedProtocolVersionError({ supported, requested: MODERN_REVISION }));
}
