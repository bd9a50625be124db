import type { ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The capabilities serve asks about, from a declaration (the SDK validated its shape). */
export function declaredCapabilities(declared: unknown): ClientCapabilities {
  if (!isObject(declared)) return {};
  const capabilities: ClientCapabilities = {};
  const { elicitation, sampling, roots } = declared;
  if (isObject(elicitation)) capabilities.elicitation = { form: {}, ...(isObject(elicitation.url) ? { url: {} } : {}) };
  if (isObject(sampling)) capabilities.sampling = isObject(sampling.context) ? { context: {} } : {};
  if (isObject(roots)) capabilities.roots = {};
  return capabilities;
}

/** What a 2026-07-28 host declares in a request's `_meta` envelope (it declares on every request, not once). */
export function envelopeCapabilities(ctx: ServerContext): ClientCapabilities {
  const envelope: Record<string, unknown> = { ...ctx.mcpReq.envelope };
  return declaredCapabilities(envelope[CLIENT_CAPABILITIES]);
}
