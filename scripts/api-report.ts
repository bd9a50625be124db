/**
 * `npm run api`: writes api/<entry>.api.md, one per entry point of package.json "exports" — each
 * exported name with its kind and signature, read from the sources with the TypeScript compiler
 * API. test/public-surface.test.ts builds the same reports in memory and fails when they differ
 * from the checked-in ones, so a change to the public surface is a reviewed change to api/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface EntryPoint {
  /** The subpath users import: `mcp-statechart`, `mcp-statechart/oauth`, … */
  specifier: string;
  /** The report's file name, without `.api.md`. */
  reportName: string;
  /** The source file the entry's declarations are built from, relative to the repository root. */
  source: string;
}

export interface ExportedName {
  name: string;
  kind: 'class' | 'function' | 'const' | 'type' | 'interface' | 'enum' | 'namespace';
  signature: string;
}

/** The entry points as package.json "exports" declares them (each `types` path mapped back to its source). */
export function entryPoints(root = ROOT): EntryPoint[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { types?: string }>;
  };
  return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    if (typeof target === 'string' || target.types === undefined) return [];
    const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
    return [
      {
        specifier,
        reportName: subpath === '.' ? 'index' : subpath.slice(2),
        source: target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'),
      },
    ];
  });
}

/** tsconfig.json's compiler options (strict, NodeNext, "paths" to the entry points' sources), with nothing emitted. */
export function repositoryCompilerOptions(root = ROOT): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('tsconfig.json could not be read');
  return { ...config.options, noEmit: true };
}

export function createSurfaceProgram(entries: EntryPoint[], root = ROOT): ts.Program {
  return ts.createProgram(
    entries.map((entry) => join(root, entry.source)),
    repositoryCompilerOptions(root),
  );
}

const kindOf = (declaration: ts.Declaration, symbol: ts.Symbol): ExportedName['kind'] => {
  if (ts.isClassDeclaration(declaration)) return 'class';
  if (ts.isFunctionDeclaration(declaration)) return 'function';
  if (ts.isInterfaceDeclaration(declaration)) return 'interface';
  if (ts.isTypeAliasDeclaration(declaration)) return 'type';
  if (ts.isEnumDeclaration(declaration)) return 'enum';
  if (ts.isModuleDeclaration(declaration)) return 'namespace';
  if (symbol.flags & ts.SymbolFlags.Function) return 'function';
  return 'const';
};

function signatureOf(checker: ts.TypeChecker, symbol: ts.Symbol, kind: ExportedName['kind'], declaration: ts.Declaration): string {
  const flags = ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope | ts.TypeFormatFlags.WriteArrowStyleSignature;
  if (kind === 'function') {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
    return type
      .getCallSignatures()
      .map((signature) => checker.signatureToString(signature, undefined, flags))
      .join('\n');
  }
  if (kind === 'class') {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
    const constructors = type.getConstructSignatures().map((signature) => `new ${checker.signatureToString(signature, undefined, flags)}`);
    const instance = checker.getDeclaredTypeOfSymbol(symbol);
    const members = checker
      .getPropertiesOfType(instance)
      .filter((member) => !member.name.startsWith('#') && !isPrivate(member))
      .map((member) => `${member.name}: ${checker.typeToString(checker.getTypeOfSymbol(member), undefined, flags)}`);
    return [...constructors, ...members].join('\n');
  }
  if (kind === 'interface') {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    return checker
      .getPropertiesOfType(type)
      .map((member) => `${member.name}${member.flags & ts.SymbolFlags.Optional ? '?' : ''}: ${checker.typeToString(checker.getTypeOfSymbol(member), undefined, flags)}`)
      .join('\n');
  }
  if (kind === 'type') return checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), undefined, flags | ts.TypeFormatFlags.InTypeAlias);
  return checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, declaration), undefined, flags);
}

const isPrivate = (member: ts.Symbol): boolean =>
  (member.declarations ?? []).some((declaration) => (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0);

/** Every name an entry point exports, sorted, with its kind and signature. */
export function exportedNames(program: ts.Program, entry: EntryPoint, root = ROOT): ExportedName[] {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(join(root, entry.source));
  if (!file) throw new Error(`${entry.source} is not in the program`);
  const module = checker.getSymbolAtLocation(file);
  if (!module) return [];
  return checker
    .getExportsOfModule(module)
    .map((exported) => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.declarations?.[0];
      if (!declaration) throw new Error(`${entry.specifier}: ${exported.name} has no declaration`);
      const kind = kindOf(declaration, symbol);
      return { name: exported.name, kind, signature: signatureOf(checker, symbol, kind, declaration) };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A public function or class, where it is declared, and the code of its `@example` tags. */
export interface DocumentedDeclaration {
  name: string;
  specifier: string;
  /** `path:line`, relative to the repository root. */
  location: string;
  examples: string[];
}

/** Every function and class the entry points export (each declaration once, under the first entry point that exports it), with its `@example` code. */
export function functionsAndClasses(program: ts.Program, entries: EntryPoint[], root = ROOT): DocumentedDeclaration[] {
  const checker = program.getTypeChecker();
  const found = new Map<ts.Declaration, DocumentedDeclaration>();
  for (const entry of entries) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, entry.source))!);
    for (const exported of module ? checker.getExportsOfModule(module) : []) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.declarations?.[0];
      if (!declaration || !(ts.isFunctionDeclaration(declaration) || ts.isClassDeclaration(declaration)) || found.has(declaration)) continue;
      const file = declaration.getSourceFile();
      found.set(declaration, {
        name: exported.name,
        specifier: entry.specifier,
        location: `${relative(root, file.fileName)}:${file.getLineAndCharacterOfPosition(declaration.getStart(file)).line + 1}`,
        examples: ts
          .getJSDocTags(declaration)
          .filter((tag) => tag.tagName.text === 'example')
          .map((tag) => exampleCode(ts.getTextOfJSDocComment(tag.comment) ?? '')),
      });
    }
  }
  return [...found.values()];
}

/** The code of an `@example`: the inside of its ```ts fence, or the whole text when it has none. */
const exampleCode = (text: string): string => /```(?:ts|typescript)?\n([\s\S]*?)```/.exec(text)?.[1] ?? text;

export function renderReport(entry: EntryPoint, names: ExportedName[]): string {
  const lines = [
    `# \`${entry.specifier}\``,
    '',
    `${names.length} names, from \`${entry.source}\`. Generated by \`npm run api\` (scripts/api-report.ts); test/public-surface.test.ts fails when this file is out of date.`,
    '',
  ];
  for (const { name, kind, signature } of names) {
    lines.push(`## ${name} (${kind})`, '', '```ts', signature, '```', '');
  }
  return lines.join('\n');
}

/** The reports by file name (`index.api.md`, …), as `npm run api` writes them. */
export function buildReports(root = ROOT, program = createSurfaceProgram(entryPoints(root), root)): Map<string, string> {
  return new Map(entryPoints(root).map((entry) => [`${entry.reportName}.api.md`, renderReport(entry, exportedNames(program, entry, root))]));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const folder = join(ROOT, 'api');
  mkdirSync(folder, { recursive: true });
  for (const [file, text] of buildReports()) {
    writeFileSync(join(folder, file), text);
    console.log(`api/${file}: ${/^(\d+) names/m.exec(text)?.[1]} names`);
  }
}
