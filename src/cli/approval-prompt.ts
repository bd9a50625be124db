/**
 * What the CLI shows before a project server may run: the whole definition that decides what
 * runs and where it connects, as the file writes it. `${VAR}`s stay unexpanded (the prompt names
 * the variables the server will read from your environment, never their values); env, header
 * and OAuth fields are shown by name only; credentials written literally in the command or URL
 * are redacted as everywhere else (src/literal-secrets.ts); every control character is escaped.
 */
import type { McpServerEntry } from '../../machines/types.js';
import type { DiscoveredServer } from '../config/index.js';
import { referencedVariables } from '../config/expand-variables.js';
import { REDACTED } from '../redact.js';
import { writtenRedaction } from './written-secrets.js';
import { terminalLine } from './terminal-text.js';

/** Longer values are cut, saying how much is not shown (the whole entry is in the file). */
const MAX_SHOWN_VALUE = 2000;
/** Fields shown by what they are; anything else in the entry is listed by name. */
const KNOWN_FIELDS = new Set(['type', 'transport', 'transportType', 'command', 'args', 'cwd', 'env', 'url', 'headers', 'oauth', 'description', 'disabled']);

/** `value` redacted before it comes here: a cut must not leave the start of a secret. */
function shown(value: string): string {
  const cut = value.length > MAX_SHOWN_VALUE ? `${value.slice(0, MAX_SHOWN_VALUE)}… (${value.length - MAX_SHOWN_VALUE} more characters not shown)` : value;
  return terminalLine(cut);
}

/** A shell-like rendering: plain words as they are, anything else quoted; `--token [redacted]` reads as a plain word. */
function shellWord(word: string): string {
  const plain = word !== '' && /^[A-Za-z0-9_@%+=:,./${}-]*$/.test(word.replaceAll(REDACTED, ''));
  return plain ? shown(word) : shown(`'${word.replaceAll("'", `'\\''`)}'`);
}

function names(map: unknown): string[] {
  return typeof map === 'object' && map !== null ? Object.keys(map) : [];
}

/** Every string of the entry, for the variables it reads. */
function stringsOf(config: McpServerEntry): string[] {
  const strings: string[] = [];
  const visit = (value: unknown, depth: number) => {
    if (typeof value === 'string') strings.push(value);
    else if (depth < 4 && typeof value === 'object' && value !== null) for (const item of Object.values(value)) visit(item, depth + 1);
  };
  visit(config, 0);
  return strings;
}

export function describeServerDefinition(server: DiscoveredServer): string {
  const config = server.written ?? server.config;
  const clean = writtenRedaction(config);
  const lines = [`${server.scope === 'project' ? 'Project server' : 'Server'} "${terminalLine(server.name)}" from ${terminalLine(server.source)} (${server.transport}):`];
  const add = (label: string, text: string) => lines.push(`  ${`${label}:`.padEnd(14)}${text}`);
  if (server.transport === 'stdio') {
    add('runs', [config.command ?? '', ...(config.args ?? [])].map((word) => shellWord(clean(word))).join(' '));
    // Where it runs, resolved: a project's server runs in the project folder (or its cwd there).
    const folder = server.config.cwd ?? config.cwd;
    if (folder !== undefined) add('in folder', shown(clean(folder)));
  } else {
    add('connects to', shown(clean(config.url ?? '')));
  }
  const env = names(config.env);
  if (env.length > 0) add('env', `${env.map(terminalLine).join(', ')} (values not shown)`);
  const headers = names(config.headers);
  if (headers.length > 0) add('headers', `${headers.map(terminalLine).join(', ')} (values not shown)`);
  if (typeof config.oauth === 'object' && config.oauth !== null) add('oauth', `${names(config.oauth).map(terminalLine).join(', ')} (values not shown)`);
  const variables = [...new Set(stringsOf(config).flatMap(referencedVariables))];
  if (variables.length > 0) add('reads', `${variables.map((name) => `\${${name}}`).join(', ')} from your environment`);
  if (typeof config.description === 'string') add('description', shown(clean(config.description)));
  const others = Object.keys(config).filter((field) => !KNOWN_FIELDS.has(field));
  if (others.length > 0) add('other fields', others.map(terminalLine).join(', '));
  return lines.join('\n');
}
