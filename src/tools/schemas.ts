/** The zod schemas of the loader tools' arguments, and their JSON Schema for function calling. */
import { z } from 'zod';
import { MAX_MESSAGE_BYTES } from '../transports/message-size.js';
import { quoted } from './model-text.js';
import type { LoaderToolParameters } from './types.js';

/*
 * Every byte of these schemas is read by the model on every turn (bench/parts/context.ts measures
 * them), so they say only what the names and the tool descriptions do not: no descriptions on
 * self-explaining fields, no length bounds (define-tool.ts checks lengths before parsing, and
 * search clamps its limit). The tool descriptions say where the values come from.
 */

/** An enum of the servers the model may use; a plain string when there are none, since an empty enum is not valid for function calling. */
function serverField(servers: string[]) {
  const [first, ...rest] = servers;
  if (first === undefined) return z.string().describe('No MCP server is available to this agent.');
  return z.enum([first, ...rest]);
}

/**
 * An optional field for which `null` is the same as leaving it out: many models send null for an
 * optional parameter they do not use (`"arguments": null` for a tool without parameters). The
 * JSON Schema stays the field's own type, with no null in it.
 */
function leftOutWhenNull<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => (value === null ? undefined : value), schema.optional());
}

export function loadMcpSchema(servers: string[], listed: boolean) {
  return z.object({
    // Too many servers to list: any name, checked at run time (an unknown one gets the closest names).
    server: listed ? serverField(servers) : z.string(),
    // Undescribed: a manifest too large for the budget comes in a short form whose note says to ask for one tool.
    tool: leftOutWhenNull(z.string()),
    // false: the model turns the server off for this session; true (or a plain load) turns it back on.
    enabled: leftOutWhenNull(z.boolean()),
  });
}

export function searchMcpToolsSchema() {
  return z.object({
    query: z.string().describe('Plain words, or a tool name'),
    server: leftOutWhenNull(z.string()),
    limit: leftOutWhenNull(z.number().int()),
    detail: leftOutWhenNull(z.enum(['name', 'summary', 'full'])),
  });
}

/**
 * call_mcp_tool and read_mcp_resource name the server as a plain string: the enum is load_mcp's
 * alone, so a large config is not listed three times in the model's context (and a server the
 * model may not use is refused at run time all the same).
 */
export function callMcpToolSchema() {
  return z.preprocess(
    refuseMisplacedArguments,
    z.object({
      server: z.string(),
      tool: z.string(),
      // A loose object rather than a record: its JSON Schema has no `propertyNames`, which some function-calling APIs reject.
      // The JSON Schema shows the object alone; a JSON string of one, which models often send, is taken too.
      arguments: leftOutWhenNull(z.preprocess(objectFromJsonText, z.looseObject({}))),
    }),
  );
}

const CALL_MCP_TOOL_KEYS: ReadonlySet<string> = new Set(['server', 'tool', 'arguments']);
/** How many misplaced keys the refusal names; the rest are counted, so a model's hundred keys do not fill its answer. */
const MISPLACED_KEYS_NAMED = 5;

/** Keys of call_mcp_tool's own arguments that are none of its fields: the tool's arguments, put beside `server` and `tool`. */
function misplacedKeys(args: object): string[] {
  const misplaced: string[] = [];
  for (const key in args) {
    if (Object.hasOwn(args, key) && !CALL_MCP_TOOL_KEYS.has(key) && (args as Record<string, unknown>)[key] !== undefined) misplaced.push(key);
  }
  return misplaced;
}

/**
 * Models often put a tool's arguments beside `server` and `tool` (`{ server, tool, message }`).
 * Dropped, as a schema drops unknown keys, they would never reach the tool, and the model would
 * read the server's "missing parameter" error, which does not say why. Nor are they moved into
 * `arguments` on a guess: the call is refused, nothing is sent, and the answer names them and
 * says where they go, so the model learns the shape.
 */
function refuseMisplacedArguments(value: unknown, context: z.RefinementCtx): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const misplaced = misplacedKeys(value);
  if (misplaced.length === 0) return value;
  const named = misplaced.slice(0, MISPLACED_KEYS_NAMED).map(quoted);
  const more = misplaced.length - named.length;
  const list = more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
  const keys = misplaced.length === 1 ? `${list} is not a field of call_mcp_tool` : `${list} are not fields of call_mcp_tool`;
  context.addIssue({
    code: 'custom',
    path: [],
    message: `${keys}; put the tool's own arguments inside "arguments", as {"server": …, "tool": …, "arguments": {${named[0]}: …}}. Nothing was sent`,
  });
  return value;
}

/**
 * A string that is the JSON text of an object becomes that object; anything else is left to the
 * object schema. A string longer than any message a server may be sent is refused unread.
 */
function objectFromJsonText(value: unknown, context: z.RefinementCtx): unknown {
  if (typeof value !== 'string') return value;
  const advice = 'send "arguments" as a JSON object, such as {"path": "/tmp"}';
  if (value.length > MAX_MESSAGE_BYTES) {
    context.addIssue({ code: 'custom', message: `a string of ${value.length} characters, longer than any message this client sends; ${advice}` });
    return value;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed;
  context.addIssue({ code: 'custom', message: `a string that is not the JSON text of an object; ${advice}` });
  return value;
}

export type CallMcpToolInput = z.output<ReturnType<typeof callMcpToolSchema>>;

/** An object literal or JSON object: what zod's loose object copies key for key, with no key it would drop. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  // An own `__proto__` key (JSON.parse makes one) is left out of zod's copy: such arguments take the schema's way.
  return (prototype === Object.prototype || prototype === null) && !Object.hasOwn(value, '__proto__');
}

/**
 * call_mcp_tool's arguments as its schema parses them, when they have the usual shape (two
 * strings and, if any, a plain arguments object); undefined for anything else, which the schema
 * then parses and words the error for. Every call passes here: a zod parse of these three fields
 * costs more than the rest of the loader's work on a call. It accepts nothing the schema refuses
 * (test/loader-usual-arguments.test.ts compares them). `arguments` is passed on as given rather
 * than copied: nothing on the way to the server changes it.
 */
export function usualCallMcpToolInput(args: unknown): CallMcpToolInput | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const { server, tool, arguments: toolArguments } = args as Record<string, unknown>;
  if (typeof server !== 'string' || typeof tool !== 'string') return undefined;
  // Any key besides the three is a misplaced argument, which the schema refuses.
  for (const key in args) if (!CALL_MCP_TOOL_KEYS.has(key)) return undefined;
  if (toolArguments === undefined) return { server, tool };
  return isPlainRecord(toolArguments) ? { server, tool, arguments: toolArguments } : undefined;
}

export function readMcpResourceSchema() {
  return z.object({ server: z.string(), uri: z.string() });
}

/**
 * JSON Schema of what the model may send (`io: 'input'`: no `additionalProperties: false`, which
 * would only add bytes: unknown keys are dropped when parsing), without the `$schema` key, which
 * OpenAI and Anthropic function definitions do not take.
 */
export function toParameters(schema: z.ZodType): LoaderToolParameters {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input', override: dropNoiseKeywords }) as Record<string, unknown>;
  return {
    ...json,
    type: 'object',
    properties: (json.properties as Record<string, unknown> | undefined) ?? {},
    required: (json.required as string[] | undefined) ?? [],
  };
}

/**
 * Keywords that say nothing the type does not, bytes the model reads for nothing: `{}` for
 * `properties` and `additionalProperties` on an object, and the safe-integer bounds zod gives
 * every integer.
 */
function dropNoiseKeywords({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  for (const keyword of ['properties', 'additionalProperties'] as const) {
    const value = jsonSchema[keyword];
    if (value && typeof value === 'object' && Object.keys(value).length === 0) delete jsonSchema[keyword];
  }
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}
