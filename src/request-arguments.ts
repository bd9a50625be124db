/**
 * The manager's request methods as plain JavaScript may call them: with any value in any place.
 * Checked before anything is sent, so a wrong type gets a TypeError that names it rather than a
 * wait with no end (a server name that is not a string matched no server's answer), a crash (a
 * tool name or URI that is not a string, when its failure was worded) or a server's schema dump.
 */
import { describeValue, isPlainObject, requestSpecProblem, serverNameProblem, timeLimitProblem, unreadableRequestProblem } from '../machines/request-shape.js';
import type { RequestSpec } from '../machines/types.js';
import { quoted } from '../machines/control-characters.js';

const METHOD_OF: Record<RequestSpec['kind'], string> = {
  tool: 'callTool',
  resource: 'readResource',
  prompt: 'getPrompt',
  subscribe: 'subscribeResource',
  unsubscribe: 'unsubscribeResource',
  complete: 'complete',
};

/** The manager's method that sends this request, as its refusals name it: a tool call that follows a task is `resumeTask`'s. */
export function requestMethod(spec: RequestSpec): string {
  return spec.kind === 'tool' && spec.taskId !== undefined ? 'resumeTask' : METHOD_OF[spec.kind];
}

/** How the request runs, as given (unchecked). */
interface GivenRun {
  signal?: unknown;
  onProgress?: unknown;
}
/** Its time limits, as given (unchecked). */
interface GivenLimits {
  timeoutMs?: unknown;
  maxTotalTimeoutMs?: unknown;
}

const NO_LIMITS: GivenLimits = Object.freeze({});

/** Why `server` cannot name a server, or undefined. */
export function invalidServerNameError(method: string, server: unknown): TypeError | undefined {
  const problem = serverNameProblem(server);
  return problem === undefined ? undefined : new TypeError(`${method}: ${problem}.`);
}

/** Why `config` cannot be a server definition, or undefined (none given: the one configured). */
export function invalidServerConfigError(method: string, config: unknown): TypeError | undefined {
  return config === undefined || isPlainObject(config)
    ? undefined
    : new TypeError(`${method}: the server definition must be an object ({ command, args } or { url }), not ${describeValue(config)}.`);
}

/** Why servers to configure (`method`: the manager's `configure`, the registry's `mcp.configure`) cannot be taken, or undefined: the registry would stop on them. */
export function invalidServersError(method: string, servers: Record<string, unknown>): TypeError | undefined {
  if (!isPlainObject(servers)) return new TypeError(`${method}: the servers must be an object of server definitions by name, not ${describeValue(servers)}.`);
  // A config file's (and LangChain's MultiServerMCPClient's) wrapper would configure one server named "mcpServers".
  for (const wrapper of ['mcpServers', 'servers']) {
    const inner = servers[wrapper];
    if (Object.keys(servers).length === 1 && isPlainObject(inner) && !Object.hasOwn(inner as object, 'command') && !Object.hasOwn(inner as object, 'url')) {
      return new TypeError(`${method}: the servers go by name ({ notes: { command, args } }), not inside { ${wrapper}: … } as a config file writes them: pass its ${wrapper} object.`);
    }
  }
  for (const [name, config] of Object.entries(servers)) {
    if (!isPlainObject(config)) return new TypeError(`${method}: the definition of server ${quoted(name)} must be an object ({ command, args } or { url }), not ${describeValue(config)}.`);
  }
  return undefined;
}

/** The MCP SDK Client's form of each call, which code moved from the SDK writes first: `callTool({ name, arguments })`. */
const SDK_FORM: Partial<Record<RequestSpec['kind'], string>> = {
  tool: "write callTool(server, name, arguments) here, where the SDK's Client takes callTool({ name, arguments })",
  prompt: "write getPrompt(server, name, arguments) here, where the SDK's Client takes getPrompt({ name, arguments })",
  resource: "write readResource(server, uri) here, where the SDK's Client takes readResource({ uri })",
};

/** Why this request cannot be sent as given, or undefined. */
export function invalidRequestError(server: unknown, spec: RequestSpec, run: GivenRun, limits: GivenLimits | undefined): TypeError | undefined {
  try {
    return checkedRequestError(server, spec, run, limits);
  } catch (error) {
    // A field that throws when read (a revoked Proxy): a rejection like any other wrong value, not a throw from a method that returns a promise.
    return new TypeError(`${requestMethod(spec)}: ${unreadableRequestProblem(error)}.`);
  }
}

function checkedRequestError(server: unknown, spec: RequestSpec, run: GivenRun, limits: GivenLimits | undefined): TypeError | undefined {
  const method = requestMethod(spec);
  const error = invalidServerNameError(method, server) ?? invalidSpecError(method, spec) ?? invalidOptionsError(method, run, limits ?? NO_LIMITS);
  const sdkForm = SDK_FORM[spec.kind];
  const named = spec.kind === 'tool' ? spec.tool : spec.kind === 'prompt' ? spec.name : spec.kind === 'resource' ? spec.uri : undefined;
  if (error === undefined || sdkForm === undefined || !(isPlainObject(server) || isPlainObject(named))) return error;
  return new TypeError(`${error.message.replace(/\.$/, '')}: ${sdkForm}.`);
}

function invalidSpecError(method: string, spec: RequestSpec): TypeError | undefined {
  const problem = requestSpecProblem(spec);
  return problem === undefined ? undefined : new TypeError(`${method}: ${problem}.`);
}

function invalidOptionsError(method: string, { signal, onProgress }: GivenRun, { timeoutMs, maxTotalTimeoutMs }: GivenLimits): TypeError | undefined {
  if (signal !== undefined && !isAbortSignal(signal)) return new TypeError(`${method}: the signal option must be an AbortSignal, not ${describeValue(signal)}.`);
  if (onProgress !== undefined && typeof onProgress !== 'function') return new TypeError(`${method}: the onProgress option must be a function, not ${describeValue(onProgress)}.`);
  return invalidLimitError(method, 'timeoutMs', timeoutMs) ?? invalidLimitError(method, 'maxTotalTimeoutMs', maxTotalTimeoutMs);
}

function invalidLimitError(method: string, option: string, value: unknown): TypeError | undefined {
  const problem = timeLimitProblem(`${option} option`, value);
  return problem === undefined ? undefined : new TypeError(`${method}: ${problem}.`);
}

function isAbortSignal(value: unknown): boolean {
  return isPlainObject(value) && typeof (value as AbortSignal).aborted === 'boolean' && typeof (value as AbortSignal).addEventListener === 'function';
}
