import { LOG_LEVEL_META_KEY, type ClientCapabilities, type LoggingLevel, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** Log levels, least severe first (RFC 5424 as MCP orders them). */
export const LOG_SEVERITY = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const satisfies readonly LoggingLevel[];

/**
 * The params of a 2025-era host's `logging/setLevel`, checked by serve's handler: the SDK's own
 * check of a spec method answers a bad level -32603 with a raw issue dump; given schemas, it
 * answers -32602 (Invalid params) naming the levels allowed.
 */
export const SET_LEVEL_PARAMS = z.object({ level: z.enum(LOG_SEVERITY) });

const isLoggingLevel = (value: unknown): value is LoggingLevel => LOG_SEVERITY.some((level) => level === value);

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

/**
 * The level a 2026-07-28 host asks a request's log messages from (`io.modelcontextprotocol/logLevel`
 * in its `_meta`); undefined when it asks for none, and then the request gets none.
 */
export function envelopeLogLevel(ctx: ServerContext): LoggingLevel | undefined {
  const envelope: Record<string, unknown> = { ...ctx.mcpReq.envelope };
  const level = envelope[LOG_LEVEL_META_KEY];
  return isLoggingLevel(level) ? level : undefined;
}
