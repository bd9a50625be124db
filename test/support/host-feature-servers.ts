/** The two servers the host-feature tests ask through (URL elicitation, sampling with tools), one per era, and a manager closed after each test. */
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { McpConnectionManager, silentLogger, type McpHostHandlers } from '../../src/index.js';
import type { McpServerConfig } from '../../machines/types.js';

const MODERN_SERVER = fileURLToPath(new URL('../fixtures/modern-server.mjs', import.meta.url));
const LEGACY_SERVER = fileURLToPath(new URL('../fixtures/legacy-host-features.mjs', import.meta.url));

export const HOST_FEATURE_SERVERS: Array<{ era: string; config: McpServerConfig }> = [
  { era: 'modern (2026-07-28, input_required)', config: { command: process.execPath, args: [MODERN_SERVER], protocol: 'modern' } },
  { era: 'legacy (2025-11-25, server→client request)', config: { command: process.execPath, args: [LEGACY_SERVER] } },
];

export function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('');
}

/** `connected(config, handlers)`: a manager with those handlers, connected to the server under `name`; disposed after the test. */
export function managerPerTest(name: string): (config: McpServerConfig, handlers: McpHostHandlers) => Promise<McpConnectionManager> {
  let manager: McpConnectionManager | undefined;
  afterEach(async () => {
    await manager?.dispose();
    manager = undefined;
  });
  return async (config, handlers) => {
    manager = new McpConnectionManager({ logger: silentLogger, handlers });
    await manager.connect(name, config);
    return manager;
  };
}
