/** The MCP reference servers installed as dev dependencies, as stdio config entries over one temporary folder. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpStdioServerConfig } from '../../machines/types.js';

const BIN = fileURLToPath(new URL('../../node_modules/.bin/', import.meta.url));

function node(bin: string, ...args: string[]): McpStdioServerConfig {
  return { command: process.execPath, args: [path.join(BIN, bin), ...args] };
}

export interface ReferenceServers {
  /** The folder server-filesystem may use and server-memory keeps its graph in. */
  folder: string;
  everything: McpStdioServerConfig;
  memory: McpStdioServerConfig;
  filesystem: McpStdioServerConfig;
  cleanup(): void;
}

export function referenceServers(): ReferenceServers {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-reference-'));
  return {
    folder,
    everything: node('mcp-server-everything', 'stdio'),
    memory: { ...node('mcp-server-memory'), env: { MEMORY_FILE_PATH: path.join(folder, 'memory.jsonl') } },
    filesystem: node('mcp-server-filesystem', folder),
    cleanup: () => rmSync(folder, { recursive: true, force: true }),
  };
}
