import { createRequire } from 'node:module';
import type { McpServerConfig } from '../../machines/types.js';

const require = createRequire(import.meta.url);

/** The reference server's entry script (`node <it> stdio|streamableHttp`). */
export const EVERYTHING_SCRIPT = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** server-everything over stdio, started with node directly (no npx). */
export function everythingStdio(): McpServerConfig {
  return { command: process.execPath, args: [EVERYTHING_SCRIPT, 'stdio'] };
}

/** The text parts of a tool result, joined. */
export function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}
