/**
 * Starting a bench module in a child process of its own. Under bench/run.ts the modules are
 * bundled to bench/.cache/build/*.mjs and run by plain `node`, like a user's compiled code (no
 * TypeScript loader thread in the memory figures); run straight from source they go through tsx.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BENCH_DIR } from './paths.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** True inside a bundle: then every bench module sits beside this code as NAME.mjs. */
export const RUNNING_BUNDLED = path.basename(here) === 'build' && import.meta.url.endsWith('.mjs');

/** tsx's loader by absolute URL: `--import tsx` would resolve from the child's working folder. */
const tsxLoader = () => pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** `node` and its arguments that run bench/parts/NAME.ts. */
export function benchModuleCommand(name: string, nodeFlags: string[] = []): { command: string; args: string[] } {
  return RUNNING_BUNDLED
    ? { command: process.execPath, args: [...nodeFlags, path.join(here, `${name}.mjs`)] }
    : { command: process.execPath, args: [...nodeFlags, '--import', tsxLoader(), path.join(BENCH_DIR, 'parts', `${name}.ts`)] };
}
