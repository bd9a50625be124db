import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed package's root (holding examples/), whether running from src/ or dist/. */
export function packageRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (folder !== dirname(folder)) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'mcp-statechart') {
      return folder;
    }
    folder = dirname(folder);
  }
  throw new Error('mcp-statechart: cannot find the package root (no package.json named mcp-statechart above this file).');
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
