import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../machines/types.js';

/** The server that speaks only 2026-07-28 (test/fixtures/modern-server.mjs). */
export const MODERN_SERVER = fileURLToPath(new URL('../fixtures/modern-server.mjs', import.meta.url));

/** The modern server over stdio. */
export function modernStdio(...flags: string[]): McpServerConfig {
  return { command: process.execPath, args: [MODERN_SERVER, ...flags] };
}

/** The modern server over Streamable HTTP on 127.0.0.1, on a port of its choosing; its process goes into `children` for the test to kill. */
export async function modernHttp(children: ChildProcess[], ...flags: string[]): Promise<McpServerConfig> {
  const child = spawn(process.execPath, [MODERN_SERVER, '--http', ...flags], { stdio: ['pipe', 'pipe', 'ignore'] });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening (\d+)/.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the modern server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp` };
}
