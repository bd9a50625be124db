/**
 * The demo's two servers, for the lifecycle view's screenshot (scripts/visualize.ts) and its
 * browser test: the notes server over stdio and the weather server over Streamable HTTP on
 * 127.0.0.1, as examples/mcp.json configures them for `mcp-statechart demo`.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { McpHttpServerConfig, McpStdioServerConfig } from '../machines/types.js';
import type { McpConnectionManager } from '../src/manager.js';

const EXAMPLES = new URL('../examples/servers/', import.meta.url);

interface WeatherServer {
  url: string;
  close(): Promise<void>;
}

export interface DemoServers {
  servers: { notes: McpStdioServerConfig; weather: McpHttpServerConfig };
  close(): Promise<void>;
}

export async function startDemoServers(): Promise<DemoServers> {
  const { startWeatherServer } = (await import(pathToFileURL(fileURLToPath(new URL('weather-server.mjs', EXAMPLES))).href)) as {
    startWeatherServer(port?: number): Promise<WeatherServer>;
  };
  const weather = await startWeatherServer(0);
  return {
    servers: {
      notes: { command: process.execPath, args: [fileURLToPath(new URL('notes-server.mjs', EXAMPLES))], description: 'Personal notes' },
      weather: { url: weather.url, description: 'Weather forecasts' },
    },
    close: () => weather.close(),
  };
}

/** Kills the connected notes server's process (kill -9), as the demo's step 7 does. */
export async function killNotesServer(manager: McpConnectionManager): Promise<void> {
  const info = await manager.callTool('notes', 'server_info', {});
  const { pid } = JSON.parse((info.content[0] as { text: string }).text) as { pid: number };
  process.kill(pid, 'SIGKILL');
}
