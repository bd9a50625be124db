/**
 * zod schemas for one `mcpServers` entry, in two steps:
 * 1. `serverEntryShape`: the type of every known field, before `${VAR}` expansion (a URL written as
 *    `${BASE}/mcp` is not a URL yet). Unknown fields pass through: other tools add their own.
 * 2. `stdioRequirements` / `remoteRequirements`: what the chosen transport needs, checked after
 *    expansion, so `${HOST}` that expands to a bad URL is caught.
 * Every message is written here and quotes no value: env and header values are secrets, and URLs
 * often carry tokens.
 */
import { z } from 'zod';
import { ACCEPTED_TRANSPORTS, parseTransport, PROTOCOL_PREFERENCES, webSocketProblem, webSocketUrlProblem } from '../../machines/options.js';

const text = z.string({ error: 'must be a string' });
const stringMap = z.record(z.string(), z.string({ error: 'must be a string' }), {
  error: 'must be an object whose values are strings',
});
const transportName = z
  .string({ error: 'must be a string' })
  .refine((spelling) => parseTransport(spelling) !== undefined, {
    error: (issue) => webSocketProblem(issue.input) ?? `is not a known transport (use ${ACCEPTED_TRANSPORTS.join(', ')})`,
  });

export const serverEntryShape = z.looseObject({
  type: transportName.optional(),
  transport: transportName.optional(),
  transportType: transportName.optional(),
  command: text.optional(),
  args: z.array(text, { error: 'must be an array of strings' }).optional(),
  env: stringMap.optional(),
  cwd: text.optional(),
  url: text.optional(),
  headers: stringMap.optional(),
  description: text.optional(),
  disabled: z.boolean({ error: 'must be true or false' }).optional(),
  sampling: z.boolean({ error: 'must be true or false' }).optional(),
  elicitation: z.boolean({ error: 'must be true or false' }).optional(),
  timeoutMs: z.number({ error: 'must be a number of milliseconds' }).int('must be a whole number').positive('must be above 0').optional(),
  protocol: z.enum(PROTOCOL_PREFERENCES, { error: `must be one of ${PROTOCOL_PREFERENCES.map((value) => `"${value}"`).join(', ')}` }).optional(),
});

export const stdioRequirements = z.looseObject({
  command: z.string({ error: 'is required for a stdio server' }).min(1, 'must not be empty'),
});

export const remoteRequirements = z.looseObject({
  url: z.url({
    protocol: /^https?$/,
    error: (issue) =>
      issue.input === undefined ? 'is required for an http or sse server' : (webSocketUrlProblem(issue.input) ?? 'must be an http:// or https:// URL'),
  }),
});

/** `['env', 'TOKEN']` → `env.TOKEN`; `['args', 2]` → `args[2]`. */
export function fieldName(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`))
    .join('');
}
