/**
 * The testing kit's `@example`s are the first thing a user of `mcp-statechart/testing` copies, so
 * each one runs as written, to its end (test/public-surface.test.ts only type-checks them: three
 * of them compiled and threw a TypeError as soon as they ran).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, it, vi } from 'vitest';
import { createSurfaceProgram, entryPoints, functionsAndClasses } from '../scripts/api-report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const testing = entryPoints().filter((entry) => entry.specifier === 'mcp-statechart/testing');
const examples = functionsAndClasses(createSurfaceProgram(testing), testing).flatMap(({ name, location, examples: texts }) =>
  texts.map((text, index) => ({ label: `${name} (${location}) example ${index + 1}`, text })),
);
// Inside the repository (and ignored by git), so an example's `import ... from 'vitest'` resolves.
mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
const folder = mkdtempSync(join(ROOT, 'test-artifacts', 'testing-examples-'));

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("the testing kit's examples", () => {
  it.each(examples.map((example, index) => ({ ...example, file: join(folder, `example-${index}.ts`) })))('$label runs to its end', async ({ text, file }) => {
    writeFileSync(file, text);
    const quiet = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(pathToFileURL(file).href);
    } finally {
      quiet.mockRestore();
    }
  });
});
