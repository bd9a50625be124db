/** A home with a user mcp.json holding other content, and a project folder (a git root) for the config-command tests. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli.js';

export const USER_FILE_TEXT = `{
    "theme": "dark",
    "mcpServers": {
        "first": { "command": "first-server" },
        "last": { "url": "https://last.example/mcp" }
    },
    "zzz": [1, 2]
}
`;

export interface ConfigHome {
  home: string;
  project: string;
  userFile: string;
  projectFile: string;
  cli: (...args: string[]) => ReturnType<typeof runCli>;
  read: (file: string) => Record<string, unknown>;
}

/** Uses the test's own HOME (test/support/temporary-home.ts). */
export function configHome(): ConfigHome {
  const home = process.env.HOME!;
  const project = join(home, 'work', 'repo');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(home, '.ai-zen'), { recursive: true });
  const userFile = join(home, '.ai-zen', 'mcp.json');
  writeFileSync(userFile, USER_FILE_TEXT);
  return {
    home,
    project,
    userFile,
    projectFile: join(project, '.mcp.json'),
    cli: (...args) => runCli(args, { cwd: project, env: { HOME: home }, timeoutMs: 30_000 }),
    read: (file) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>,
  };
}
