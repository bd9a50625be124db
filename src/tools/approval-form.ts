/**
 * What an approval form shows of a call's arguments. The model chooses their order and may add
 * keys the server ignores, so the form is built from the tool's schema, not from the model's
 * JSON: the schema's keys first, in the schema's order, each value on its own and cut on its own
 * (a long first value cannot push `path` out of view), then the other keys by name. A form that
 * cannot show whole every value the server acts on is not shown: the call is refused instead.
 */

import { quoted } from '../../machines/control-characters.js';

/** One argument's value is shown up to this many characters of its JSON. */
export const MAX_SHOWN_ARGUMENT = 4_000;
/** All shown values together: past this the form is too long to read, and the call is refused. */
export const MAX_SHOWN_ARGUMENTS = 16_000;

export interface ShownArgument {
  key: string;
  /** The value as JSON, cut to `MAX_SHOWN_ARGUMENT` characters. */
  json: string;
  /** The length of the whole JSON value. */
  length: number;
  cut: boolean;
}

export interface ArgumentsForApproval {
  /** The values the server acts on: schema keys first, in the schema's order. */
  shown: ShownArgument[];
  /** Keys the tool's schema does not declare (the server ignores them): named, values not shown. */
  unknown: string[];
  /** Undefined when every value the server acts on is shown whole; otherwise why not. */
  notWhole?: string;
}

/** The schema's declared keys, or undefined when the schema lets the server read any key. */
function declaredKeys(inputSchema: unknown): string[] | undefined {
  if (typeof inputSchema !== 'object' || inputSchema === null) return undefined;
  const { properties, additionalProperties } = inputSchema as { properties?: unknown; additionalProperties?: unknown };
  if (typeof properties !== 'object' || properties === null) return undefined;
  // A schema that takes more keys with a schema of their own hands those to the server too.
  if (typeof additionalProperties === 'object' && additionalProperties !== null) return undefined;
  if (additionalProperties === true) return undefined;
  return Object.keys(properties);
}

function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

export function argumentsForApproval(args: Record<string, unknown>, inputSchema: unknown): ArgumentsForApproval {
  const declared = declaredKeys(inputSchema);
  const present = Object.keys(args);
  const acted = declared === undefined ? present : declared.filter((key) => Object.hasOwn(args, key));
  const unknown = declared === undefined ? [] : present.filter((key) => !declared.includes(key));
  const shown = acted.map((key): ShownArgument => {
    const json = jsonOf(args[key]);
    const cut = json.length > MAX_SHOWN_ARGUMENT;
    return { key, json: cut ? json.slice(0, MAX_SHOWN_ARGUMENT) : json, length: json.length, cut };
  });
  const firstCut = shown.find((argument) => argument.cut);
  const total = shown.reduce((sum, argument) => sum + argument.length, 0);
  const notWhole = firstCut
    ? `its argument ${quoted(firstCut.key)} is ${formatCount(firstCut.length)} characters long, and an approval form shows at most ${formatCount(MAX_SHOWN_ARGUMENT)} of each argument`
    : total > MAX_SHOWN_ARGUMENTS
      ? `its arguments are ${formatCount(total)} characters long together, and an approval form shows at most ${formatCount(MAX_SHOWN_ARGUMENTS)}`
      : undefined;
  return { shown, unknown, notWhole };
}
