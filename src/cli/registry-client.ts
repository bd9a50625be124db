/**
 * Reads an MCP Registry over its official API (`/v0.1`): one server's latest (or named) version,
 * and the server list with cursor paging. Every read is bounded: a time limit for the whole
 * command, a size limit per response, a page limit for a listing (a registry that hands out
 * cursors forever is read `MAX_PAGES` times, then the listing says it stopped).
 *
 * Which registry: `--registry <url>`, else `"mcpRegistry": { "url": … }` in
 * `~/.ai-zen/settings.json`, else the official one. Hosts are encouraged to point at a
 * subregistry they trust.
 */
import { join } from 'node:path';
import { homeFolder } from '../config/home-folder.js';
import { isBlockedPort } from '../connection/errors.js';
import { isJsonObject } from '../config/null-proto.js';
import { parseJson } from '../config/parse-json.js';
import { readConfigFile } from '../config/read-config-file.js';
import { CliError } from './json-codes.js';
import { parseServerList, parseServerResponse, type RegistryEntry } from './registry-document.js';
import { terminalLine } from './terminal-text.js';

export const OFFICIAL_REGISTRY = 'https://registry.modelcontextprotocol.io';
const DEFAULT_REGISTRY_FROM = 'the default (the official registry)';
/** A server.json is a few KB; a page of 100 of them well under this. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
export const MAX_PAGES = 10;
const PAGE_SIZE = 30;

export function settingsPath(): string {
  return join(homeFolder(), '.ai-zen', 'settings.json');
}

function checkedUrl(text: string, from: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError('INVALID_ARGUMENTS', `${from} is not a URL; give the registry's address, e.g. ${OFFICIAL_REGISTRY}.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CliError('INVALID_ARGUMENTS', `${from} must be an http:// or https:// URL.`);
  return url.href.replace(/\/+$/, '');
}

/** The registry to read, and where that choice came from (shown to the person). `flagName`: the command's flag, named when its value is wrong. */
export async function chooseRegistry(flag: string | undefined, flagName = '--registry'): Promise<{ url: string; from: string }> {
  if (flag !== undefined) return { url: checkedUrl(flag, flagName), from: flagName };
  const file = settingsPath();
  // Read as a config file is: a FIFO there would otherwise hang the command.
  const read = await readConfigFile(file);
  if (read.kind === 'unreadable') throw new CliError('CONFIG_INVALID', `${file} ${read.reason}; fix it, or pass --registry <url>.`);
  const text = read.kind === 'text' ? read.text : undefined;
  if (text !== undefined && text.trim() !== '') {
    const parsed = parseJson(text);
    if (!parsed.ok) throw new CliError('CONFIG_INVALID', `${file} is not valid JSON (line ${parsed.line}, column ${parsed.column}: ${parsed.reason}); fix it, or pass --registry <url>.`);
    const setting = isJsonObject(parsed.value) && isJsonObject(parsed.value.mcpRegistry) ? parsed.value.mcpRegistry.url : undefined;
    if (typeof setting === 'string') return { url: checkedUrl(setting, `"mcpRegistry.url" in ${file}`), from: file };
  }
  return { url: OFFICIAL_REGISTRY, from: DEFAULT_REGISTRY_FROM };
}

export interface ReadOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Where the registry's address came from (chooseRegistry's `from`): what to change when it cannot be reached. */
  from: string;
}

/** A read bounded by `timeoutMs` (the command's --timeout) that `interrupt` (Ctrl-C) also ends. */
export function readOptions(interrupt: AbortSignal, timeoutMs: number, from: string): ReadOptions {
  return { signal: AbortSignal.any([interrupt, AbortSignal.timeout(timeoutMs)]), timeoutMs, from };
}

/**
 * Why a registry could not be reached and what to do: fetch says "fetch failed", with the reason
 * (a refused connection, an unknown host, a port it will not use: "bad port") beneath, in words that
 * name neither where the address came from nor what a registry's address looks like.
 */
function unreachableError(url: string, error: Error, { from }: ReadOptions): CliError {
  const cause = error.cause instanceof Error ? (error.cause as Error & { code?: unknown }) : undefined;
  const address = new URL(url);
  const chosen = from !== DEFAULT_REGISTRY_FROM;
  const fix = chosen
    ? `${from} should be the address of an MCP Registry (API v0.1), without the /v0.1, e.g. ${OFFICIAL_REGISTRY}`
    : `check the network, or name another registry with --registry-url (search), --registry (install) or "mcpRegistry.url" in ${settingsPath()}`;
  if (isBlockedPort(error)) {
    return new CliError(
      'REGISTRY_UNREACHABLE',
      `Could not reach the registry at ${url}: fetch refuses to connect to port ${address.port}, one of the "bad ports" the Fetch standard blocks (such as 1, 6000 or 6667).`,
      `run the registry on another port and give that address; ${fix}`,
    );
  }
  const why = cause?.code === 'ECONNREFUSED' ? `nothing is listening at ${address.host}: is the registry running? ` : cause?.code === 'ENOTFOUND' ? `no host is named ${address.hostname}; ` : '';
  return new CliError('REGISTRY_UNREACHABLE', `Could not reach the registry at ${url}: ${cause?.message ?? error.message}.`, `${why}${fix}`);
}

/** A GET whose body is read up to MAX_RESPONSE_BYTES and parsed as JSON; 404 is `undefined`. */
async function getJson(url: string, options: ReadOptions): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: options.signal });
  } catch (error) {
    if (options.signal.aborted) throw new CliError('TIMEOUT', `The registry did not answer within ${options.timeoutMs} ms (${url}); try again, or give more time with --timeout.`);
    throw unreachableError(url, error as Error, options);
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  const body = await boundedText(response, url, options);
  if (!response.ok) {
    throw new CliError('REGISTRY_ERROR', `The registry answered ${response.status} to ${url}${body.trim() ? `: ${terminalLine(body.trim().slice(0, 200))}` : ''}.`);
  }
  const parsed = parseJson(body);
  if (!parsed.ok) throw new CliError('REGISTRY_INVALID', `The registry's answer to ${url} is not JSON (column ${parsed.column}: ${parsed.reason}).`);
  return parsed.value;
}

async function boundedText(response: Response, url: string, options: ReadOptions): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_RESPONSE_BYTES) {
        await reader.cancel();
        throw new CliError('REGISTRY_INVALID', `The registry's answer to ${url} is over ${MAX_RESPONSE_BYTES / 1024 / 1024} MB; not read.`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (options.signal.aborted) throw new CliError('TIMEOUT', `The registry did not finish answering within ${options.timeoutMs} ms (${url}); give more time with --timeout.`);
    throw error;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `GET /v0.1/servers/{name}/versions/{version}`; undefined when the registry has no such server or version. */
export async function fetchServer(registry: string, name: string, version: string, options: ReadOptions): Promise<RegistryEntry | undefined> {
  const url = `${registry}/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`;
  const document = await getJson(url, options);
  if (document === undefined) return undefined;
  const parsed = parseServerResponse(document);
  if (!parsed.ok) throw new CliError('REGISTRY_INVALID', `The registry's document for ${terminalLine(name)} is not a valid server.json: ${terminalLine(parsed.reason)}. Nothing was written.`);
  if (parsed.value.server.name !== name) {
    throw new CliError('REGISTRY_INVALID', `Asked the registry for ${terminalLine(name)}, it answered with ${terminalLine(parsed.value.server.name)}. Nothing was written.`);
  }
  return parsed.value;
}

export interface SearchResult {
  entries: RegistryEntry[];
  malformed: number;
  /** Set when there were more pages than read: why the listing stopped. */
  stopped?: string;
}

/** `GET /v0.1/servers?search=…&cursor=…`, page after page, until `limit` entries, the last page or MAX_PAGES. */
export async function searchServers(registry: string, words: string, limit: number, options: ReadOptions): Promise<SearchResult> {
  const entries: RegistryEntry[] = [];
  const seenCursors = new Set<string>();
  let malformed = 0;
  let cursor: string | undefined;
  for (let page = 1; ; page += 1) {
    const query = new URLSearchParams({ search: words, version: 'latest', limit: String(PAGE_SIZE) });
    if (cursor !== undefined) query.set('cursor', cursor);
    const url = `${registry}/v0.1/servers?${query}`;
    const document = await getJson(url, options);
    if (document === undefined) throw new CliError('REGISTRY_ERROR', `The registry at ${registry} has no server list (${url} answered 404); is it an MCP Registry (API v0.1)?`);
    const parsed = parseServerList(document);
    if (!parsed.ok) throw new CliError('REGISTRY_INVALID', `The registry's server list is not in the API's format: ${terminalLine(parsed.reason)}.`);
    malformed += parsed.value.malformed;
    for (const entry of parsed.value.entries) if (entry.status !== 'deleted' && entries.length < limit) entries.push(entry);
    cursor = parsed.value.nextCursor;
    if (cursor === undefined) return { entries, malformed };
    if (entries.length >= limit) return { entries, malformed, stopped: `showing the first ${limit}; more match (--limit shows more)` };
    if (seenCursors.has(cursor)) return { entries, malformed, stopped: 'the registry handed out the same page cursor twice; stopped there' };
    seenCursors.add(cursor);
    if (page >= MAX_PAGES) return { entries, malformed, stopped: `stopped after ${MAX_PAGES} pages; narrow the words to see the rest` };
  }
}
