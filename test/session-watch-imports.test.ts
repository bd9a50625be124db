/**
 * What a session's watch imports at run time: session-watch.ts is used by every session and by
 * the testing kit's scripted registry, and needs none of the transports. It named the logger of
 * the client's own log messages by importing log-flood-limit.ts, which wraps the stdio transport,
 * so that transport came along with it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The files of this repository `start` imports at run time (type-only imports left out), each once, as paths from the root. */
function runtimeImports(start: string): string[] {
  const seen = new Set<string>();
  const queue = [resolve(ROOT, start)];
  // Bounded by the files of the repository: each is read once.
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
    for (const statement of source.statements) {
      const typeOnly = ts.isImportDeclaration(statement) ? statement.importClause?.isTypeOnly === true : ts.isExportDeclaration(statement) && statement.isTypeOnly;
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || typeOnly || !statement.moduleSpecifier) continue;
      if (!ts.isStringLiteral(statement.moduleSpecifier) || !statement.moduleSpecifier.text.startsWith('.')) continue;
      const imported = resolve(dirname(file), statement.moduleSpecifier.text.replace(/\.js$/, '.ts'));
      if (existsSync(imported)) queue.push(imported);
    }
  }
  return [...seen].map((file) => relative(ROOT, file));
}

describe("a session's watch", () => {
  it('imports no transport at run time', () => {
    const imported = runtimeImports('src/connection/session-watch.ts');
    expect(imported.length).toBeGreaterThan(1);
    expect(imported.filter((file) => file.startsWith('src/transports/'))).toEqual([]);
  });
});
