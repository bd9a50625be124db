/**
 * A project's stdio servers run in the project's folder: `node server.mjs` in a `.mcp.json`
 * means the project's server.mjs, wherever the command was started. A relative `cwd` is a folder
 * of the project too. Tested with the CLI started from another working folder that holds a
 * server.mjs of its own.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverMcpServers, enabledServers } from '../src/config/index.js';
import { runCli } from './support/cli.js';
import { STDIO_FIXTURE } from './support/fixtures.js';

let root: string;
let project: string;
let elsewhere: string;

/** The fixture server, writing each request it gets to `requests.log` in its working folder. */
const projectServer = `process.argv.push('--log-requests', 'requests.log');\nawait import(${JSON.stringify(pathToFileURL(STDIO_FIXTURE).href)});\n`;
/** What runs if the working folder's server.mjs is taken instead: it says so and exits. */
const decoy = `process.stderr.write('the server.mjs of the working folder ran\\n');\nprocess.exit(1);\n`;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mcp-project-folder-'));
  project = join(root, 'project');
  elsewhere = join(root, 'elsewhere');
  mkdirSync(join(project, 'tools'), { recursive: true });
  mkdirSync(elsewhere);
  writeFileSync(join(project, 'server.mjs'), projectServer);
  writeFileSync(join(project, 'tools', 'server.mjs'), projectServer);
  writeFileSync(join(elsewhere, 'server.mjs'), decoy);
  writeFileSync(
    join(project, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        here: { command: process.execPath, args: ['server.mjs'] },
        nested: { command: process.execPath, args: ['server.mjs'], cwd: 'tools' },
      },
    }),
  );
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const loadFromElsewhere = (server: string) =>
  runCli(['--project', project, '--project-servers', 'trust', 'load', server], { cwd: elsewhere, env: { HOME: root }, timeoutMs: 30_000 });

describe("a project's stdio servers run in the project folder", () => {
  it('an entry without cwd runs the project\'s server.mjs in the project folder, not the one where the CLI started', async () => {
    const run = await loadFromElsewhere('here');
    expect(run.stderr).not.toContain('working folder ran');
    expect(run.code).toBe(0);
    expect(existsSync(join(project, 'requests.log'))).toBe(true);
    expect(existsSync(join(elsewhere, 'requests.log'))).toBe(false);
  });

  it('a relative cwd is a folder of the project', async () => {
    const run = await loadFromElsewhere('nested');
    expect(run.code).toBe(0);
    expect(existsSync(join(project, 'tools', 'requests.log'))).toBe(true);
  });

  it('discovery gives the entry its folder: the project folder, or its cwd resolved against it', async () => {
    const { servers } = await discoverMcpServers({ projectRoot: project, userConfigPath: join(root, 'none.json'), cwd: elsewhere });
    expect(servers.here?.config.cwd).toBe(project);
    expect(servers.nested?.config.cwd).toBe(join(project, 'tools'));
  });

  it('the definition a chart holds (sealed, as written) keeps that folder, also for an entry that reads a variable', async () => {
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { token: { command: process.execPath, args: ['server.mjs'], env: { TOKEN: '${TOKEN}' } } } }));
    const { servers } = await discoverMcpServers({ projectRoot: project, userConfigPath: join(root, 'none.json'), cwd: elsewhere, env: { TOKEN: 'x' } });
    expect(enabledServers(servers).token?.cwd).toBe(project);
  });
});
