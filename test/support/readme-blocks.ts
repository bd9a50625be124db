/**
 * The TypeScript and JavaScript code blocks of README.md and docs/*.md, and what a block takes
 * from the blocks before it: test/readme-examples.test.ts compiles them against the sources,
 * test/packed-consumer.test.ts against the packed package installed in a consumer project.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CodeBlock {
  /** The markdown file, relative to the repository root. */
  file: string;
  /** The 1-based line of the block's first line of code in that file. */
  line: number;
  language: string;
  code: string;
}

const CHECKED_LANGUAGES = new Set(['ts', 'typescript', 'mts', 'js', 'javascript', 'mjs']);
export const isJavaScript = (language: string) => ['js', 'javascript', 'mjs'].includes(language);

/** The fenced blocks of a markdown text in the checked languages, indented ones (in list items) included, with the fence's indentation taken off. */
export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^( *)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[index]!);
    if (!open) continue;
    const [, indent, fence, language] = open as unknown as [string, string, string, string];
    const start = index + 1;
    do index++;
    while (index < lines.length && !new RegExp(`^ *${fence[0]}{${fence.length},}\\s*$`).test(lines[index]!));
    if (!CHECKED_LANGUAGES.has(language.toLowerCase())) continue;
    const code = lines.slice(start, index).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()));
    blocks.push({ file, line: start + 1, language: language.toLowerCase(), code: code.join('\n') });
  }
  return blocks;
}

export const markdownFiles = (): string[] => [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) => join('docs', path)),
];

export const firstLine = (block: CodeBlock) => block.code.split('\n').find((line) => line.trim() !== '')!.trim();

const MANAGER_AND_SERVERS = [
  '// What the first block of "The library" made: the manager and discovery\'s servers.',
  "declare const manager: import('mcp-statechart').McpConnectionManager;",
  "declare const servers: import('mcp-statechart').DiscoveryResult['servers'];",
].join('\n');
/**
 * What a block takes from the blocks before it, declared instead of repeated, by the block's
 * first line. Each block that is not complete on its own is named here; a block whose first line
 * changes loses its context and fails, and a context no block uses fails too.
 */
export const CONTEXT: Record<string, string> = {
  // "Semantic stage", with the AI SDK and offline
  "import { embedMany } from 'ai';": MANAGER_AND_SERVERS,
  "import { initModel } from '@energetic-ai/embeddings';": MANAGER_AND_SERVERS,
  // "Approval before a tool call"
  "import { createLoaderTools } from 'mcp-statechart';": MANAGER_AND_SERVERS,
  // "The manifest index"
  "import { createLoaderTools, enabledServers, ManifestIndex } from 'mcp-statechart';": MANAGER_AND_SERVERS,
};

/** A block's text with its context before it, and how many lines that context takes. */
export function withContext(block: CodeBlock): { text: string; contextLines: number } {
  const context = CONTEXT[firstLine(block)] ?? '';
  return context === '' ? { text: block.code, contextLines: 0 } : { text: `${context}\n${block.code}`, contextLines: context.split('\n').length };
}

/** Every checked block of README.md and docs/*.md. */
export const readmeBlocks = (): CodeBlock[] => markdownFiles().flatMap((file) => codeBlocks(file, readFileSync(join(ROOT, file), 'utf8')));
