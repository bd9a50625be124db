/**
 * Type-checks snippets of TypeScript as a user's modules would be: each snippet is a virtual file
 * at the path given (inside the repository, so tsconfig.json "paths" resolve `mcp-statechart` and
 * its subpaths to the entry points' sources), compiled in memory under the repository's own
 * compiler options. test/public-surface.test.ts checks the `@example`s with it,
 * test/readme-examples.test.ts the README's code blocks.
 */
import ts from 'typescript';
import { repositoryCompilerOptions } from '../../scripts/api-report.js';

export interface SnippetDiagnostic {
  /** The 1-based line in the snippet's text (0 when the diagnostic has no position). */
  line: number;
  message: string;
}

/**
 * The syntactic and semantic diagnostics of each snippet (keyed by its path), none for a snippet
 * that compiles. `oldProgram` lets a caller that already built a program over the sources reuse
 * its files.
 */
export function compileSnippets(
  snippets: ReadonlyMap<string, string>,
  { options = repositoryCompilerOptions(), oldProgram }: { options?: ts.CompilerOptions; oldProgram?: ts.Program } = {},
): Map<string, SnippetDiagnostic[]> {
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (path) => snippets.get(path) ?? readFile(path);
  host.fileExists = (path) => snippets.has(path) || fileExists(path);
  host.getSourceFile = (path, language, ...rest) =>
    snippets.has(path) ? ts.createSourceFile(path, snippets.get(path)!, language, true) : getSourceFile(path, language, ...rest);
  const program = ts.createProgram({ rootNames: [...snippets.keys()], options, host, ...(oldProgram ? { oldProgram } : {}) });
  const results = new Map<string, SnippetDiagnostic[]>();
  for (const path of snippets.keys()) {
    const file = program.getSourceFile(path)!;
    results.set(
      path,
      [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((diagnostic) => ({
        line: diagnostic.start === undefined ? 0 : file.getLineAndCharacterOfPosition(diagnostic.start).line + 1,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
      })),
    );
  }
  return results;
}
