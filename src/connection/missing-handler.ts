import { type ClientCapabilities, ProtocolErrorCode, SdkErrorCode } from '@modelcontextprotocol/client';

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

/** The capability each kind of input a 2026-07-28 server may ask for needs declared. */
const CAPABILITY_OF: Readonly<Record<string, keyof ClientCapabilities>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * The kind of input a server asked for although the request did not declare it (a 2026-07-28
 * server must not, but one that does not check may): the SDK finds no handler for it and says so
 * in its own words ("…register a handler, or handle input_required results manually"), naming
 * the method in `data`. Other errors: undefined.
 */
export function undeclaredInputAsked(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, data } = error as { code?: unknown; data?: unknown };
  const method = typeof data === 'object' && data !== null ? (data as { method?: unknown }).method : undefined;
  return code === SdkErrorCode.CapabilityNotSupported && typeof method === 'string' && Object.hasOwn(CAPABILITY_OF, method) ? method : undefined;
}

/**
 * The capabilities a server refused a request for want of (-32021), or asked for input under
 * although they were not declared; other errors: undefined. Read from the code and `data`, as the
 * SDK documents, not by class: an error whose message held a secret is a redacted copy
 * (src/redact.ts), a plain Error that keeps both.
 */
export function missingCapabilities(error: unknown): ClientCapabilities | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const asked = undeclaredInputAsked(error);
  if (asked !== undefined) return { [CAPABILITY_OF[asked]!]: {} };
  const { code, data } = error as { code?: unknown; data?: unknown };
  if (code !== ProtocolErrorCode.MissingRequiredClientCapability) return undefined;
  const required = typeof data === 'object' && data !== null ? (data as { requiredCapabilities?: unknown }).requiredCapabilities : undefined;
  return typeof required === 'object' && required !== null && !Array.isArray(required) ? (required as ClientCapabilities) : {};
}
