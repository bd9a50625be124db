/**
 * What `load` prints for a person: the server's manifest as a listing (tools with their one-line
 * descriptions and annotations, resources, resource templates, prompts), not the JSON the model
 * gets. `load --json` keeps the manifest as data.
 */
import type { ManifestSummary, ToolSummary } from '../tools/manifest-summary.js';
import { counted } from './counted.js';
import { displayWidth, padToWidth } from './display-width.js';
import { terminalLine } from './terminal-text.js';
import { lookAlikeNotes, nameNote } from '../../machines/look-alike-names.js';

/** Names longer than this are not padded to: one long name must not push every description off screen. */
const NAME_COLUMN_MAX = 32;

const HINTS: Array<[keyof NonNullable<ToolSummary['annotations']>, string]> = [
  ['readOnlyHint', 'read-only'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'open world'],
];

/** What the server claims of a tool, in words: `[read-only, idempotent]`, `[structured output]`. */
function toolTags(tool: ToolSummary): string {
  const tags = HINTS.filter(([key]) => tool.annotations?.[key] === true).map(([, word]) => word);
  if (tool.hasOutputSchema) tags.push('structured output');
  return tags.length > 0 ? `[${tags.join(', ')}]` : '';
}

function promptArguments(argumentsList: unknown): string {
  if (!Array.isArray(argumentsList)) return '';
  const names = argumentsList.map((argument: { name?: unknown; required?: unknown }) =>
    typeof argument?.name !== 'string' ? '?' : argument.required === true ? argument.name : `${argument.name}?`,
  );
  return `(${names.join(', ')})`;
}

/**
 * Rows of a section, the first column padded so the second lines up. Each cell is one line: a
 * server's name with a line break in it would otherwise print a row of its making.
 */
function section(title: string, cells: Array<[string, string]>): string[] {
  if (cells.length === 0) return [];
  const rows = cells.map(([name, rest]) => [terminalLine(name), terminalLine(rest)] as const);
  // In terminal columns: 天気予報 takes eight, not the four its UTF-16 length says.
  const width = Math.min(NAME_COLUMN_MAX, Math.max(...rows.map(([name]) => displayWidth(name))));
  return ['', `${title}:`, ...rows.map(([name, rest]) => (rest ? `  ${padToWidth(name, width)}  ${rest}` : `  ${name}`).trimEnd())];
}

const joined = (...parts: Array<string | undefined>) => parts.filter((part) => part).join('  ');

/** load_mcp's data for a whole server (not one tool, not a switch): the summary the listing is made from. */
export function isManifestSummary(data: unknown): data is ManifestSummary {
  return (
    typeof data === 'object' &&
    data !== null &&
    'server' in data &&
    typeof data.server === 'string' &&
    'tools' in data &&
    Array.isArray(data.tools) &&
    'resources' in data &&
    Array.isArray(data.resources) &&
    'resourceTemplates' in data &&
    Array.isArray(data.resourceTemplates) &&
    'prompts' in data &&
    Array.isArray(data.prompts)
  );
}

export function manifestListing(summary: ManifestSummary): string {
  const counts = [
    counted(summary.tools.length, 'tool'),
    counted(summary.resources.length, 'resource'),
    counted(summary.resourceTemplates.length, 'resource template'),
    counted(summary.prompts.length, 'prompt'),
  ];
  const revision = summary.protocolVersion ? ` (MCP ${summary.protocolVersion})` : '';
  const lines = [`${summary.server}: ${summary.state}${revision}, ${counts.join(', ')}`];
  if (summary.instructions) lines.push('', 'Instructions:', ...summary.instructions.split('\n').map((line) => `  ${line}`.trimEnd()));
  // `read_file` and `rеad_file` (Cyrillic е) side by side: the note after a name says which is which.
  const alike = lookAlikeNotes(summary.tools.map((tool) => tool.name));
  lines.push(
    ...section('Tools', summary.tools.map((tool, row) => [`${tool.name}${nameNote(tool.name)}${alike[row]}`, joined(tool.title && tool.title !== tool.name ? `"${tool.title}"` : undefined, tool.description, toolTags(tool))])),
    ...section('Resources', summary.resources.map((resource) => [resource.uri, joined(resource.name, resource.mimeType && `(${resource.mimeType})`, resource.description)])),
    ...section('Resource templates', summary.resourceTemplates.map((template) => [template.uriTemplate, joined(template.name, template.description)])),
    ...section('Prompts', summary.prompts.map((prompt) => [`${prompt.name}${promptArguments(prompt.arguments)}`, prompt.description ?? ''])),
  );
  if (summary.note) lines.push('', summary.note);
  return lines.join('\n');
}
