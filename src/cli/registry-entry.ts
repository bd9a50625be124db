/**
 * Turns a registry's `server.json` into an `mcpServers` entry: npm → `npx -y <id>@<version>`,
 * pypi → `uvx <id>==<version>`, oci → `docker run -i --rm … <image>:<version>`, a remote →
 * an `http`/`sse` entry. Whatever the person has to give (secrets, required values without a
 * default) becomes a `${VAR}` reference read from their environment; a secret is never written,
 * even when the document carries one. The entry keeps `registry: { url, name, version }` so a
 * later `outdated`/`update` can compare it with the registry.
 */
import type { McpServerEntry } from '../../machines/types.js';
import type { RegistryArgument, RegistryInput, RegistryKeyValue, RegistryPackage, RegistryRemote, RegistryServer } from './registry-document.js';

/** What the person has to know before installing: the variables the entry reads. */
export interface EntryVariable {
  name: string;
  secret: boolean;
  required: boolean;
  /** A non-secret default the entry falls back to (`${NAME:-default}`). */
  fallback?: string;
  description?: string;
}

export interface InstallPlan {
  entry: McpServerEntry;
  /** `npm package …`, `remote …`: what was chosen. */
  source: string;
  variables: EntryVariable[];
  /** Optional environment variables the entry does not set (the person may add them). */
  optional: EntryVariable[];
  /** Packages or remotes passed over, and why. */
  skipped: string[];
}

/** Identifiers and versions go on a command line: no option look-alike, no space, no shell character. */
const SAFE_IDENTIFIER = /^[A-Za-z0-9@][A-Za-z0-9@._/:+~-]*$/;
const SAFE_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;
/** What `${NAME:-default}` can hold: the expansion ends at the first `}`. */
const SAFE_FALLBACK = /^[^}$]*$/;

/** `X-API-Key` → `X_API_KEY`; `--db-host` → `DB_HOST`. */
export function variableName(text: string): string {
  const name = text.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase();
  return /^[0-9]/.test(name) ? `_${name}` : name || 'VALUE';
}

class Collector {
  readonly variables = new Map<string, EntryVariable>();

  /** The text for an input the document does not fix: a `${NAME}` or `${NAME:-default}` reference. */
  reference(name: string, input: RegistryInput): string {
    const secret = input.isSecret === true;
    const fallback = !secret && input.default !== undefined && SAFE_FALLBACK.test(input.default) ? input.default : undefined;
    const known = this.variables.get(name);
    this.variables.set(name, {
      name,
      secret: secret || (known?.secret ?? false),
      required: input.isRequired === true || (known?.required ?? false),
      fallback: known?.fallback ?? fallback,
      description: known?.description ?? input.description,
    });
    return fallback === undefined ? `\${${name}}` : `\${${name}:-${fallback}}`;
  }

  /** An input's value: the document's fixed value with its `{variables}` filled in, else a reference. */
  valueOf(name: string, input: RegistryInput & { variables?: Record<string, RegistryInput> }): string {
    if (input.value === undefined || input.isSecret) return this.reference(name, input);
    const variables = input.variables ?? {};
    return input.value.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, key: string) =>
      Object.hasOwn(variables, key) ? this.valueOf(variableName(key), variables[key]!) : whole,
    );
  }

  /** The command-line words of the arguments; an optional one with nothing to put is left out. */
  argumentWords(argumentsList: RegistryArgument[] | undefined): string[] {
    const words: string[] = [];
    for (const argument of argumentsList ?? []) {
      const given = argument.value !== undefined || argument.default !== undefined || argument.isRequired === true;
      if (!given) continue;
      if (argument.type === 'named') {
        if (argument.name === undefined) continue;
        words.push(argument.name, this.valueOf(variableName(argument.name), argument));
      } else {
        words.push(this.valueOf(variableName(argument.valueHint ?? 'value'), argument));
      }
    }
    return words;
  }

  /** Environment variables or headers: the fixed or referenced ones, and the optional ones left out. */
  keyValues(inputs: RegistryKeyValue[] | undefined, nameOf: (input: RegistryKeyValue) => string): { set: Record<string, string>; optional: EntryVariable[] } {
    const set: Record<string, string> = {};
    const optional: EntryVariable[] = [];
    for (const input of inputs ?? []) {
      const fixed = input.value !== undefined || input.default !== undefined || input.isRequired === true || input.isSecret === true;
      if (fixed) set[input.name] = this.valueOf(nameOf(input), input);
      else optional.push({ name: input.name, secret: false, required: false, description: input.description });
    }
    return { set, optional };
  }
}

function packagePlan(server: RegistryServer, pkg: RegistryPackage, registry: Record<string, string>): InstallPlan | string {
  const label = `${pkg.registryType} package ${pkg.identifier}`;
  if (pkg.transport !== undefined && pkg.transport.type !== 'stdio') return `${label}: it runs a local ${pkg.transport.type} server, which this CLI does not start`;
  if (!SAFE_IDENTIFIER.test(pkg.identifier)) return `${label}: its identifier is not a plain package name`;
  const version = pkg.version ?? server.version;
  if (!SAFE_VERSION.test(version)) return `${label}: its version "${version}" is not a plain version`;
  const collector = new Collector();
  const runtime = collector.argumentWords(pkg.runtimeArguments);
  const packageWords = collector.argumentWords(pkg.packageArguments);
  const { set: env, optional } = collector.keyValues(pkg.environmentVariables, (input) => input.name);
  let command: string;
  let args: string[];
  switch (pkg.registryType) {
    case 'npm':
      command = 'npx';
      args = ['-y', ...runtime, `${pkg.identifier}@${version}`, ...packageWords];
      break;
    case 'pypi':
      command = 'uvx';
      args = [...runtime, `${pkg.identifier}==${version}`, ...packageWords];
      break;
    case 'oci': {
      // An image named with its tag or digest already is one; the container sees only the variables passed with -e.
      const image = /[:@][^/]*$/.test(pkg.identifier) ? pkg.identifier : `${pkg.identifier}:${version}`;
      command = 'docker';
      args = ['run', '-i', '--rm', ...runtime, ...Object.keys(env).flatMap((name) => ['-e', name]), image, ...packageWords];
      break;
    }
    default:
      return `${label}: ${pkg.registryType} packages are not supported (npm, pypi and oci are)`;
  }
  const entry: McpServerEntry = { command, args, ...(Object.keys(env).length > 0 ? { env } : {}) };
  if (server.description !== undefined) entry.description = server.description;
  entry.registry = registry;
  return { entry, source: label, variables: [...collector.variables.values()], optional, skipped: [] };
}

const REMOTE_TYPES: Record<string, 'http' | 'sse'> = { 'streamable-http': 'http', sse: 'sse' };

function remotePlan(server: RegistryServer, remote: RegistryRemote, registry: Record<string, string>): InstallPlan | string {
  const type = REMOTE_TYPES[remote.type];
  if (type === undefined) return `remote ${remote.url}: its transport "${remote.type}" is not streamable-http or sse`;
  const collector = new Collector();
  const url = collector.valueOf('URL', { value: remote.url, variables: remote.variables });
  if (!/^(https?:\/\/|\$\{)/i.test(url)) return `remote ${remote.url}: not an http(s) URL`;
  const { set: headers, optional } = collector.keyValues(remote.headers, (input) => variableName(input.name));
  const entry: McpServerEntry = { type, url, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  if (server.description !== undefined) entry.description = server.description;
  entry.registry = registry;
  return { entry, source: `remote ${remote.url} (${remote.type})`, variables: [...collector.variables.values()], optional, skipped: [] };
}

/**
 * The entry for `server`: its first package this CLI can run (or, with `preferRemote`, its first
 * remote), else the other kind. Undefined when nothing in it is installable; `skipped` says why.
 */
export function planInstall(server: RegistryServer, registryUrl: string, preferRemote = false): InstallPlan | { skipped: string[] } {
  const registry = { url: registryUrl, name: server.name, version: server.version };
  const skipped: string[] = [];
  const packages = () => (server.packages ?? []).map((pkg) => packagePlan(server, pkg, registry));
  const remotes = () => (server.remotes ?? []).map((remote) => remotePlan(server, remote, registry));
  for (const candidate of preferRemote ? [...remotes(), ...packages()] : [...packages(), ...remotes()]) {
    if (typeof candidate === 'string') skipped.push(candidate);
    else return { ...candidate, skipped };
  }
  return { skipped };
}
