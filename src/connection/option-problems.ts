import { isTimerLimit, TIMER_LIMIT_ALLOWED, type ResolvedConnectOptions } from '../../machines/options.js';
import { describeValue } from '../../machines/request-shape.js';
import type { McpConnectOptions, McpServerConfig } from '../../machines/types.js';
import { ConfigInvalidError } from '../errors/config-invalid.js';

export type Rule = { allowed: string; accepts: (value: unknown) => boolean };

const isNumber = (value: unknown): value is number => typeof value === 'number' && !Number.isNaN(value);
export const TIMER_LIMIT: Rule = { allowed: TIMER_LIMIT_ALLOWED, accepts: isTimerLimit };
const DURATION: Rule = { allowed: 'a number of milliseconds, 0 or more', accepts: (value) => isNumber(value) && value >= 0 };

const RULES: Record<string, Rule> = {
  connectTimeoutMs: TIMER_LIMIT,
  requestTimeoutMs: TIMER_LIMIT,
  idleTimeoutMs: { allowed: 'a number of milliseconds, 0 or more (0 or Infinity: never)', accepts: DURATION.accepts },
  healthyAfterMs: DURATION,
  autoReconnect: { allowed: 'true or false', accepts: (value) => typeof value === 'boolean' },
  maxRetries: { allowed: 'a whole number, 0 or more, or Infinity', accepts: (value) => isNumber(value) && value >= 0 && (Number.isInteger(value) || value === Infinity) },
  'backoff.initialDelayMs': DURATION,
  'backoff.maxDelayMs': DURATION,
  'backoff.jitter': { allowed: 'a number from 0 to 1', accepts: (value) => isNumber(value) && value >= 0 && value <= 1 },
};


/**
 * Throws a ConfigInvalidError for a connect option no attempt could honour (`connectTimeoutMs: -5`,
 * `maxRetries: -1`, `idleTimeoutMs: 'x'`), a `command`/`url`/`cwd` that is not a string or `args`
 * that are not an array of strings, before anything is started: such an entry would otherwise fail
 * each retry with a puzzling message, or not at all.
 */
export function assertUsableEntry(server: string, config: McpServerConfig, options: ResolvedConnectOptions): void {
  // An entry in code may come from plain JavaScript, where nothing checked these types.
  const fields: Record<string, unknown> = config;
  for (const field of ['command', 'url', 'cwd']) {
    const value = fields[field];
    if (value !== undefined && typeof value !== 'string') {
      throw new ConfigInvalidError(server, field, `"${field}" must be a string, got ${describeValue(value)}`);
    }
  }
  const { args } = fields;
  if (args !== undefined && !(Array.isArray(args) && args.every((arg) => typeof arg === 'string'))) {
    throw new ConfigInvalidError(server, 'args', `"args" must be an array of strings, got ${describeValue(args)}`);
  }
  const broken = brokenConnectOption(options, 'all set');
  if (broken) throw new ConfigInvalidError(server, broken.option, `the connect option ${broken.option} ${broken.problem}`);
}

/**
 * The first connect option no attempt could honour, with why in words (`is NaN; it must be …`),
 * or undefined. Given options (a manager's `defaults`, `some given`: those left out are not checked) and resolved ones (`all set`: undefined is wrong there too) go by the same rules.
 */
export function brokenConnectOption(options: McpConnectOptions | ResolvedConnectOptions, set: 'some given' | 'all set'): { option: string; problem: string } | undefined {
  const values: Record<string, unknown> = {
    connectTimeoutMs: options.connectTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    healthyAfterMs: options.healthyAfterMs,
    autoReconnect: options.autoReconnect,
    maxRetries: options.maxRetries,
    'backoff.initialDelayMs': options.backoff?.initialDelayMs,
    'backoff.maxDelayMs': options.backoff?.maxDelayMs,
    'backoff.jitter': options.backoff?.jitter,
  };
  for (const [option, rule] of Object.entries(RULES)) {
    const value = values[option];
    if ((value !== undefined || set === 'all set') && !rule.accepts(value)) return { option, problem: `is ${describeValue(value)}; it must be ${rule.allowed}` };
  }
  return undefined;
}
