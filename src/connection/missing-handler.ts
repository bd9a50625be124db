import { type ClientCapabilities, ProtocolErrorCode } from '@modelcontextprotocol/client';

/**
 * What to give the client for each capability a 2026-07-28 server may ask input under: the
 * capability is declared only when its handler is given, so a server refusing with -32021
 * (MissingRequiredClientCapability) means a handler (or one of its options) is missing here.
 */
function optionFor(capability: string, asked: unknown): string | undefined {
  const sub = typeof asked === 'object' && asked !== null ? asked : {};
  if (capability === 'elicitation') return 'url' in sub ? "handlers.elicitation with elicitationModes including 'url'" : 'handlers.elicitation';
  if (capability === 'sampling') return 'tools' in sub ? 'handlers.sampling with samplingTools: true' : 'handlers.sampling';
  if (capability === 'roots') return 'handlers.roots (or call setRoots() before connecting)';
  return undefined;
}

/**
 * A request the server could not finish because it needs input this client declared no handler
 * for, said so the application can act: which option of McpConnectionManager /
 * createRegistryLogic to give. Other errors: undefined.
 */
export function missingHandlerAdvice(error: unknown): string | undefined {
  const required = missingCapabilities(error);
  if (required === undefined) return undefined;
  const options = Object.entries(required).flatMap(([capability, asked]) => optionFor(capability, asked) ?? []);
  if (options.length === 0) return undefined;
  return `the server asks for input that no handler here answers; give ${options.join(' and ')} in the options of McpConnectionManager (or createRegistryLogic)`;
}

/**
 * The capabilities a server refused a request for want of (-32021); other errors: undefined. Read
 * from the code and `data.requiredCapabilities`, as the SDK documents, not by class: a refusal
 * whose message held a secret is a redacted copy (src/redact.ts), a plain Error that keeps both.
 */
export function missingCapabilities(error: unknown): ClientCapabilities | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, data } = error as { code?: unknown; data?: unknown };
  if (code !== ProtocolErrorCode.MissingRequiredClientCapability) return undefined;
  const required = typeof data === 'object' && data !== null ? (data as { requiredCapabilities?: unknown }).requiredCapabilities : undefined;
  return typeof required === 'object' && required !== null && !Array.isArray(required) ? (required as ClientCapabilities) : {};
}
