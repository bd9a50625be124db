/**
 * A config written in code (`manager.connect` / `configure`, a registry's `input.servers`) reaches
 * its server as given: `${VAR}` expands only in what `discoverMcpServers` reads. One that still
 * holds a reference is connected as written, with one warning naming the variable, the field and
 * the helper that expands it; `expandServerConfig` expands it as a file's entry would be.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { expandServerConfig } from '../src/entries/config.js';
import { STDIO_FIXTURE } from './support/fixtures.js';
import { recordingLogger } from './support/hostile.js';

const VALUE = 'canary-code-variable-5e1b7c';
let folder: string;
let manager: McpConnectionManager | undefined;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'code-config-'));
});
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
  rmSync(folder, { recursive: true, force: true });
});

/** The fixture server, told to report its arguments and its TOKEN variable in `reportFile`. */
function reportingServer(reportFile: string) {
  return {
    command: process.execPath,
    args: [STDIO_FIXTURE, '--name=${CODE_VAR}', '--print-env', 'TOKEN', '--report-file', reportFile],
    env: { TOKEN: '${CODE_VAR}' },
  };
}

function report(file: string): { argv: string[]; env: Record<string, string> } {
  return JSON.parse(readFileSync(file, 'utf8'));
}

describe('a config written in code', () => {
  it('holding ${VAR} connects as written, with one warning naming the variable, its field and expandServerConfig', async () => {
    const reportFile = join(folder, 'report.json');
    const { logger, lines } = recordingLogger();
    manager = new McpConnectionManager({ logger, variables: { CODE_VAR: VALUE } });
    await manager.connect('tool', reportingServer(reportFile));
    expect(report(reportFile)).toEqual({ argv: expect.arrayContaining(['--name=${CODE_VAR}']), env: { TOKEN: '${CODE_VAR}' } });
    await manager.disconnect('tool');
    await manager.connect('tool');

    expect(lines.warn).toEqual([
      'MCP server "tool": ${CODE_VAR} in args[1] is passed to the server as written: a config given in code is not expanded ' +
        "(only discoverMcpServers expands mcp.json files); wrap it in expandServerConfig from 'mcp-statechart/config' to expand it.",
    ]);
  });

  it('expanded by expandServerConfig reaches the server with the values, and no warning', async () => {
    const reportFile = join(folder, 'report.json');
    const { logger, lines } = recordingLogger();
    manager = new McpConnectionManager({ logger });
    await manager.connect('tool', expandServerConfig(reportingServer(reportFile), { CODE_VAR: VALUE }));

    expect(report(reportFile)).toEqual({ argv: expect.arrayContaining([`--name=${VALUE}`]), env: { TOKEN: VALUE } });
    expect(lines.warn).toEqual([]);
    expect(Object.values(lines).flat().join('\n')).not.toContain(VALUE);
  });

  it('without a reference connects with no warning', async () => {
    const reportFile = join(folder, 'report.json');
    const { logger, lines } = recordingLogger();
    manager = new McpConnectionManager({ logger });
    await manager.connect('tool', { command: process.execPath, args: [STDIO_FIXTURE, '--name=$HOME', '--report-file', reportFile], env: { TOKEN: 'plain' } });
    expect(lines.warn).toEqual([]);
  });
});
