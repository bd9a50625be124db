/** `get <name>`: a server's definition as its file writes it, values of env and headers and literal credentials hidden, and whether it is in use. */
import type { McpServerConfig } from '../../../machines/types.js';
import type { DiscoveredServer } from '../../config/index.js';
import { silentLogger } from '../../logger.js';
import { endIfInterrupted } from '../cancel-on-interrupt.js';
import { writtenRedaction } from '../written-secrets.js';
import { describeServerDefinition } from '../approval-prompt.js';
import { reportDone, reported, type ReportOptions } from '../command-report.js';
import { missingServerError } from '../failure-text.js';
import { discover, permissionsFrom, type GlobalOptions } from '../options.js';
import { isServerAllowed } from '../../tools/permissions.js';
import { commandWord, terminalLine } from '../terminal-text.js';
import { anyUnhealthy, checkHealth, DEFAULT_CHECK_TIMEOUT_MS, healthCell, type ServerHealth } from './server-health.js';
import { loginStatus, type LoginStatus } from '../../auth/login-status.js';
import { carriesCredentials, URL_CREDENTIALS_REFUSED } from '../../config/url-credentials.js';

const HIDDEN = '(hidden)';

/**
 * The entry with every env, header and oauth value replaced, keys kept in order, and the
 * credentials written literally in its other fields (`url`, `args`: src/literal-secrets.ts) redacted.
 */
export function hiddenValues(entry: McpServerConfig): Record<string, unknown> {
  const hide = (map: unknown) =>
    typeof map === 'object' && map !== null ? Object.fromEntries(Object.keys(map).map((key) => [key, HIDDEN])) : HIDDEN;
  const redact = writtenRedaction(entry);
  const clean = (value: unknown) => (typeof value === 'string' ? redact(value) : value);
  return Object.fromEntries(
    Object.entries(entry).map(([field, value]) => [
      field,
      field === 'env' || field === 'headers' || field === 'oauth' ? hide(value) : Array.isArray(value) ? value.map(clean) : clean(value),
    ]),
  );
}

function statusOf(server: DiscoveredServer, allowed: boolean, inUse: boolean): string {
  if (!inUse) return 'not used: a server of the same name in another file wins';
  if (server.trust === 'awaiting approval') return `pending approval: run \`mcp-statechart approve ${commandWord(server.name)}\` on a terminal`;
  if (server.trust === 'denied') return 'denied: project servers are denied (--project-servers deny)';
  if (server.disabled) return server.disabledBecause ? `disabled: ${server.disabledBecause}` : 'disabled ("disabled": true in its entry)';
  return allowed ? 'enabled' : 'denied by --allow/--deny';
}

export interface GetOptions extends ReportOptions {
  /** Connect the server in use once and show its health (`servers --check`'s, for one server). */
  check?: boolean;
  timeout?: number;
}

/** The health lines under a definition: the state, then what to do when it does not work. */
function healthLines(health: ServerHealth): string {
  const lines = [`  ${'health:'.padEnd(14)}${terminalLine(health.state === 'failed' || health.state === 'needs login' ? `${health.state}: ${health.reason ?? ''}` : healthCell(health))}`];
  if (health.hint) lines.push(`  ${'hint:'.padEnd(14)}${terminalLine(health.hint)}`);
  return lines.join('\n');
}

/** What `get` says of a login a connect cannot use. */
const LOGIN_WORDS: Record<Exclude<LoginStatus, 'stored'>, string> = {
  none: 'none stored',
  expired: 'expired',
  refused: 'refused: the authorization server refused to renew it',
  unreadable: 'unreadable: its login file cannot be read (cut short or edited by hand)',
};

/**
 * The login line of an OAuth server: whether a login is stored, and what to do when it is not
 * usable; no login to run when the check found the server offers none.
 */
function loginLine(name: string, login: LoginStatus, health: ServerHealth | undefined): string {
  const told =
    login === 'stored'
      ? 'stored'
      : health?.offersNoLogin
        ? 'does not apply: the server offers no OAuth login'
        : `${LOGIN_WORDS[login]}: run \`mcp-statechart login ${commandWord(name)}\``;
  return `  ${'login:'.padEnd(14)}${terminalLine(told)}`;
}

export function runGet(global: GlobalOptions, name: string, options: GetOptions): Promise<number> {
  return reported(options, async () => {
    const discovery = await endIfInterrupted(discover(global, silentLogger, false), options.json ?? false);
    const inUse = Object.hasOwn(discovery.servers, name) ? discovery.servers[name] : undefined;
    const definitions = [...(inUse ? [inUse] : []), ...(discovery.shadowed ?? []).filter((server) => server.name === name)];
    if (definitions.length === 0) {
      throw missingServerError(name, discovery);
    }
    const allowed = isServerAllowed(permissionsFrom(global), name);
    const health =
      options.check && inUse
        ? (await checkHealth(global, { ...discovery, servers: { [name]: inUse } }, { concurrency: 1, timeout: options.timeout ?? DEFAULT_CHECK_TIMEOUT_MS, json: options.json })).get(name)
        : undefined;
    const login = inUse && loginStatus(name, inUse.config);
    const shown = definitions.map((server) => ({
      server,
      status: statusOf(server, allowed, server === inUse),
      definition: hiddenValues(server.written ?? server.config),
      ...(health && server === inUse ? { health } : {}),
    }));
    const text = shown
      .map(({ server, status, health }) =>
        [
          describeServerDefinition(server),
          `  ${'status:'.padEnd(14)}${status}`,
          ...(login && server === inUse ? [loginLine(name, login, health)] : []),
          // Said instead of a login line: logging in cannot help a url fetch refuses.
          ...(server === inUse && server.transport !== 'stdio' && carriesCredentials(server.config.url) ? [`  ${'login:'.padEnd(14)}does not apply: ${URL_CREDENTIALS_REFUSED}`] : []),
          ...(health ? [healthLines(health)] : []),
        ].join('\n'),
      )
      .join('\n\n');
    return reportDone(options, text, {
      name,
      ...(login ? { login } : {}),
      definitions: shown.map(({ server, status, definition, health }) => ({ scope: server.scope, source: server.source, transport: server.transport, status, definition, ...(health ? { health } : {}) })),
    }, health && anyUnhealthy(new Map([[name, health]])) ? 'CHECK_FAILED' : undefined);
  });
}
