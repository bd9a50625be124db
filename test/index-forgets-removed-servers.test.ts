/**
 * `mcp-statechart index` takes out of the manifest index the entries of servers no config names
 * any more (gone from the user's file, or from this project's `.mcp.json`), and keeps those of
 * servers that are only disabled or awaiting approval, and other projects' entries (their files
 * were not read), and those of servers a file given with `--config` names (noted when indexed
 * from it) while that file is there. With `--config` it prunes against the user's and project's
 * files as well. With a config file that did not load, it takes nothing out: a server missing
 * from what was read may be in a config all the same. With `--prune` it also takes
 * out the entries of projects whose config file is gone (a deleted `.mcp.json` or checkout):
 * nothing reads them again.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManifestIndex } from '../src/index.js';
import { defaultManifestIndexPath } from '../src/entries/config.js';
import { stdioFixture } from './support/fixtures.js';
import { runInProcess } from './support/in-process-cli.js';

const MANIFEST = { tools: [{ name: 'noop', inputSchema: { type: 'object' as const } }], resources: [], resourceTemplates: [], prompts: [] };

interface Scene {
  userConfig: string;
  project: string;
  projectFile: string;
  /** Another project's file, on disk. */
  elsewhere: string;
}

/** A user file naming `kept` and `off` (disabled), a project naming `waiting`, and an index that also knows `gone`, `dropped` and another project's `elsewhere`. */
async function scene(): Promise<Scene> {
  const home = process.env.HOME!;
  const userConfig = join(home, '.ai-zen', 'mcp.json');
  mkdirSync(join(home, '.ai-zen'), { recursive: true });
  writeFileSync(userConfig, JSON.stringify({ mcpServers: { kept: stdioFixture(), off: { command: 'nothing-here', disabled: true } } }));
  const project = join(home, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  const projectFile = join(project, '.mcp.json');
  writeFileSync(projectFile, JSON.stringify({ mcpServers: { waiting: { command: 'not-approved-yet' } } }));

  const index = new ManifestIndex();
  for (const server of ['kept', 'off', 'gone']) index.record(server, { command: server }, MANIFEST);
  for (const server of ['waiting', 'dropped']) index.record(server, { command: server }, MANIFEST, projectFile);
  const elsewhere = join(home, 'another', '.mcp.json');
  mkdirSync(join(home, 'another'));
  writeFileSync(elsewhere, JSON.stringify({ mcpServers: { elsewhere: { command: 'elsewhere' } } }));
  index.record('elsewhere', { command: 'elsewhere' }, MANIFEST, elsewhere);
  await index.flush();
  return { userConfig, project, projectFile, elsewhere };
}

function indexedNames({ projectFile, elsewhere }: Scene): { servers: string[]; project: string[]; elsewhere: string[] } {
  const file = JSON.parse(readFileSync(defaultManifestIndexPath(), 'utf8')) as { servers: object; projects: Record<string, object> };
  return { servers: Object.keys(file.servers).sort(), project: Object.keys(file.projects[projectFile] ?? {}).sort(), elsewhere: Object.keys(file.projects[elsewhere] ?? {}) };
}

describe('mcp-statechart index --prune and servers taken out of every config', () => {
  it('without --prune takes nothing out: programs that pass their own servers share the index', async () => {
    const setting = await scene();
    const { project } = setting;

    const run = await runInProcess(['--project', project, '--project-servers', 'ask', 'index']);

    expect(run.stdout).not.toContain('Took out');
    expect(indexedNames(setting)).toEqual({ servers: ['gone', 'kept', 'off'], project: ['dropped', 'waiting'], elsewhere: ['elsewhere'] });
  });

  it('with --prune takes out the entries of servers gone from the user file and this project, keeping disabled, awaiting approval and other projects', async () => {
    const setting = await scene();
    const { project } = setting;

    const run = await runInProcess(['--project', project, '--project-servers', 'ask', 'index', '--prune']);

    expect(run.stdout).toContain('Took out of the index 2 servers no config names any more: "dropped", "gone".');
    expect(run.stdout).toMatch(/Indexed 1 of 1 server/);
    expect(indexedNames(setting)).toEqual({ servers: ['kept', 'off'], project: ['waiting'], elsewhere: ['elsewhere'] });
  });

  it('with --prune and no --config, a server indexed from a --config file still there keeps its entry', async () => {
    const setting = await scene();
    const { project } = setting;
    const team = join(process.env.HOME!, 'team.json');
    writeFileSync(team, JSON.stringify({ mcpServers: { team: stdioFixture() } }));
    expect((await runInProcess(['--config', team, 'index'])).code).toBe(0);
    expect(indexedNames(setting).servers).toContain('team');

    const run = await runInProcess(['--project', project, '--project-servers', 'ask', 'index', '--prune']);

    expect(run.stdout).toContain('Took out of the index 2 servers no config names any more: "dropped", "gone".');
    expect(indexedNames(setting).servers).toContain('team');
  });

  it('with --config prunes against the user\'s and project\'s files as well', async () => {
    const setting = await scene();
    const { userConfig, project } = setting;

    const run = await runInProcess(['--config', userConfig, '--project', project, '--project-servers', 'ask', 'index', '--prune']);

    expect(run.stdout).toContain('Took out of the index 2 servers no config names any more: "dropped", "gone".');
    expect(indexedNames(setting)).toEqual({ servers: ['kept', 'off'], project: ['waiting'], elsewhere: ['elsewhere'] });
  });

  it('takes nothing out when a config file did not load', async () => {
    const setting = await scene();
    const { project } = setting;
    writeFileSync(setting.projectFile, '{ "mcpServers": { "waiting": ');

    const run = await runInProcess(['--project', project, 'index', '--prune']);

    expect(run.stdout).not.toContain('Took out');
    expect(indexedNames(setting)).toEqual({ servers: ['gone', 'kept', 'off'], project: ['dropped', 'waiting'], elsewhere: ['elsewhere'] });
  });

  it('with --prune takes out the entries of a project whose config file is gone, naming the file', async () => {
    const setting = await scene();
    rmSync(join(process.env.HOME!, 'another'), { recursive: true });

    const run = await runInProcess(['--project', setting.project, '--project-servers', 'ask', 'index', '--prune']);

    expect(run.stdout).toContain(`Took out of the index 1 server of a project whose config file is gone: "elsewhere" (${setting.elsewhere}).`);
    expect(indexedNames(setting)).toEqual({ servers: ['kept', 'off'], project: ['waiting'], elsewhere: [] });
  });

  it('without --prune keeps a project whose config file is gone', async () => {
    const setting = await scene();
    rmSync(join(process.env.HOME!, 'another'), { recursive: true });

    const run = await runInProcess(['--project', setting.project, '--project-servers', 'ask', 'index']);

    expect(run.stdout).not.toContain('Took out');
    expect(indexedNames(setting).elsewhere).toEqual(['elsewhere']);
  });
});
