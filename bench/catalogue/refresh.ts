/**
 * Refreshes bench/catalogue/servers.json: the manifests of published MCP servers, captured by
 * installing each from the npm registry into a temporary folder of its own (never the project's
 * dependencies), starting it with no network (a fresh network namespace with loopback only, where
 * `unshare` allows it) and placeholder credentials, and asking `tools/list`. A server that will
 * not start or list its tools that way is skipped, with the reason.
 *
 * npx tsx bench/catalogue/refresh.ts [--only <name|package>[,…]] [--missing] [--keep]
 *   --only     refreshes those servers, keeping the other entries of the file as they are
 *   --missing  captures only the servers the file does not hold yet
 *   --keep  leaves the temporary folder (its path is printed) instead of removing it
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { CATALOGUE_SOURCES, type CatalogueSource } from './sources.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const CATALOGUE_FILE = path.join(HERE, 'servers.json');

const INSTALL_TIMEOUT_MS = 600_000;
const LIST_TIMEOUT_MS = 30_000;
const PARALLEL_INSTALLS = 4;
/** Pages of tools/list followed at most, so a server that always returns a cursor cannot hold the run. */
const MAX_PAGES = 50;
const ListedTools = z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })), nextCursor: z.string().optional() });

export interface CapturedServer {
  /** The key the bench configures it under. */
  name: string;
  package: string;
  version: string;
  /** The package's own one-line description (package.json), as a config's `description` would say it. */
  description: string;
  serverInfo: { name: string; version: string; title?: string };
  instructions?: string;
  /** Set when the SDK's client would refuse what the server listed. */
  warning?: string;
  tools: Tool[];
}

export interface CatalogueFile {
  note: string;
  node: string;
  servers: CapturedServer[];
  skipped: Array<{ name: string; package: string; version?: string; reason: string }>;
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function run(command: string, args: string[], cwd: string, timeout: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' } }, (error, _out, err) => {
      if (error) reject(new Error(error.killed ? `timed out after ${timeout / 1000} s` : `${error.message.split('\n')[0]} ${err.slice(-400)}`));
      else resolve();
    });
  });
}

/** The installed package's entry point: its `bin` (the one named in the source when there are several). */
function entryPoint(folder: string, source: CatalogueSource): { script: string; version: string; description: string } {
  const packageFolder = path.join(folder, 'node_modules', source.package);
  const manifest = JSON.parse(readFileSync(path.join(packageFolder, 'package.json'), 'utf8')) as {
    version: string;
    description?: string;
    bin?: string | Record<string, string>;
  };
  const bins = typeof manifest.bin === 'string' ? { default: manifest.bin } : (manifest.bin ?? {});
  const chosen = source.bin ? bins[source.bin] : Object.values(bins)[0];
  if (!chosen) throw new Error(`no bin${source.bin ? ` named ${source.bin}` : ''} in ${source.package}`);
  return { script: path.join(packageFolder, chosen), version: manifest.version, description: manifest.description ?? '' };
}

const canIsolate = (() => {
  try {
    execFileSync('unshare', ['-n', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

async function listTools(folder: string, source: CatalogueSource): Promise<CapturedServer> {
  const { script, version, description } = entryPoint(folder, source);
  const home = mkdtempSync(path.join(folder, 'home-'));
  const args = (source.args ?? []).map((arg) => arg.replaceAll('{home}', home));
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, NODE_NO_WARNINGS: '1', ...source.env };
  for (const [key, value] of Object.entries(env)) env[key] = value.replaceAll('{home}', home);
  // No network but loopback: the server cannot reach any service, so what it lists is what it knows offline.
  const command = canIsolate ? 'unshare' : process.execPath;
  const commandArgs = canIsolate ? ['-n', process.execPath, script, ...args] : [script, ...args];
  const client = new Client({ name: 'catalogue-refresh', version: '1.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({ command, args: commandArgs, env, cwd: home, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  try {
    await client.connect(transport, { timeout: LIST_TIMEOUT_MS });
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      // Read as sent, not through the SDK's Tool schema: a server whose schemas the SDK refuses is still recorded, with a warning.
      const listed = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListedTools, { timeout: LIST_TIMEOUT_MS });
      tools.push(...(listed.tools as Tool[]));
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    if (tools.length === 0) throw new Error('listed no tools');
    const refused = tools.filter((tool) => !ToolSchema.safeParse(tool).success).map((tool) => tool.name);
    const info = client.getServerVersion()!;
    return {
      name: source.name,
      package: source.package,
      version,
      description,
      serverInfo: { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) },
      ...(client.getInstructions() ? { instructions: client.getInstructions() } : {}),
      ...(refused.length > 0 ? { warning: `the SDK's Tool schema refuses ${refused.length} of these tools (${refused.slice(0, 3).join(', ')}…)` } : {}),
      tools,
    };
  } catch (error) {
    throw new Error(`${(error as Error).message}; stderr: ${stderr.replace(/\s+/g, ' ').trim().slice(-300)}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function capture(root: string, source: CatalogueSource): Promise<CapturedServer | { reason: string; version?: string }> {
  const folder = path.join(root, source.name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'package.json'), '{"private":true}');
  try {
    await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', `${source.package}@${source.version ?? 'latest'}`], folder, INSTALL_TIMEOUT_MS);
  } catch (error) {
    return { reason: `install failed: ${(error as Error).message.slice(0, 300)}` };
  }
  try {
    return await listTools(folder, source);
  } catch (error) {
    const version = existsSync(path.join(folder, 'node_modules', source.package)) ? entryPoint(folder, source).version : undefined;
    return { reason: (error as Error).message.slice(0, 500), version };
  }
}

async function main(): Promise<void> {
  const only = option('only')?.split(',');
  const sources = only ? CATALOGUE_SOURCES.filter((source) => only.includes(source.package) || only.includes(source.name)) : CATALOGUE_SOURCES;
  const keepOthers = only !== undefined || process.argv.includes('--missing');
  const root = mkdtempSync(path.join(os.tmpdir(), 'catalogue-servers-'));
  const previous: CatalogueFile | undefined = keepOthers && existsSync(CATALOGUE_FILE) ? (JSON.parse(readFileSync(CATALOGUE_FILE, 'utf8')) as CatalogueFile) : undefined;
  const captured = new Map<string, CapturedServer>();
  const skipped = new Map<string, CatalogueFile['skipped'][number]>();
  for (const server of previous?.servers ?? []) captured.set(server.name, server);
  for (const skip of previous?.skipped ?? []) skipped.set(skip.name, skip);
  console.error(`installing into ${root}${canIsolate ? '' : ' (unshare is not available: servers run with the network)'}`);
  const queue = sources.filter((source) => !process.argv.includes('--missing') || !captured.has(source.name));
  const worker = async () => {
    for (let source = queue.shift(); source; source = queue.shift()) {
      const outcome = await capture(root, source);
      captured.delete(source.name);
      skipped.delete(source.name);
      if ('tools' in outcome) {
        captured.set(source.name, outcome);
        console.error(`${source.name}: ${outcome.package}@${outcome.version}, ${outcome.tools.length} tools`);
      } else {
        skipped.set(source.name, { name: source.name, package: source.package, ...(outcome.version ? { version: outcome.version } : {}), reason: outcome.reason });
        console.error(`${source.name}: skipped, ${outcome.reason}`);
      }
      rmSync(path.join(root, source.name), { recursive: true, force: true });
      write(captured, skipped);
    }
  };
  try {
    await Promise.all(Array.from({ length: PARALLEL_INSTALLS }, worker));
  } finally {
    if (process.argv.includes('--keep')) console.error(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
  write(captured, skipped);
  const tools = [...captured.values()].reduce((sum, server) => sum + server.tools.length, 0);
  console.error(`wrote ${CATALOGUE_FILE}: ${captured.size} servers, ${tools} tools; ${skipped.size} skipped`);
}

/** Written after each server, so an interrupted refresh keeps what it captured. */
function write(captured: Map<string, CapturedServer>, skipped: Map<string, CatalogueFile['skipped'][number]>): void {
  const order = (name: string) => CATALOGUE_SOURCES.findIndex((source) => source.name === name);
  const file: CatalogueFile = {
    note: 'Written by bench/catalogue/refresh.ts: each server installed from the npm registry, started offline with placeholder credentials, tools/list recorded.',
    node: process.version,
    servers: [...captured.values()].sort((a, b) => order(a.name) - order(b.name)),
    skipped: [...skipped.values()].sort((a, b) => order(a.name) - order(b.name)),
  };
  writeFileSync(CATALOGUE_FILE, `${JSON.stringify(file, null, 1)}\n`);
}

await main();
