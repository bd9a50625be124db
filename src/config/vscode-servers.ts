/**
 * VS Code's mcp.json (`servers`, and `inputs` VS Code asks the user for) read as an `mcpServers`
 * file: its variables become the `${VAR}` references this loader expands from the environment.
 * Used by discovery (a `--config .vscode/mcp.json`) and by `import --from vscode`.
 */
import os from 'node:os';
import path from 'node:path';
import { isJsonObject } from './null-proto.js';

/** `${input:perplexity-key}` → `PERPLEXITY_KEY`: the environment variable a VS Code input is read from here. */
export function inputVariableName(id: string): string {
  return id.replace(/[^A-Za-z0-9]+/g, '_').replace(/^(\d)/, '_$1').toUpperCase();
}

/**
 * `${input:id}` (asked for by VS Code) and `${env:NAME}` (VS Code, Cursor) become `${NAME}`
 * references; `${userHome}` (both) the home folder; `${workspaceFolder}` the folder, when the
 * file says which one it is.
 */
function asVariableReferences(text: string, workspaceFolder: string | undefined): string {
  const converted = text
    .replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, '${$1}')
    .replace(/\$\{input:([^}]+)\}/g, (_match, id: string) => `\${${inputVariableName(id)}}`)
    .replace(/\$\{userHome\}/g, () => os.homedir());
  return workspaceFolder === undefined ? converted : converted.replace(/\$\{workspaceFolder\}/g, () => workspaceFolder);
}

/** Every string of an entry, converted; keys kept as written. */
export function withVariableReferences(value: unknown, workspaceFolder?: string): unknown {
  if (typeof value === 'string') return asVariableReferences(value, workspaceFolder);
  if (Array.isArray(value)) return value.map((item) => withVariableReferences(item, workspaceFolder));
  if (isJsonObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withVariableReferences(item, workspaceFolder)]));
  return value;
}

/** The workspace a VS Code or Cursor mcp.json belongs to: the folder holding its `.vscode` or `.cursor` folder. A user-level file has none. */
export function workspaceFolderOf(file: string): string | undefined {
  const folder = path.dirname(file);
  return ['.vscode', '.cursor'].includes(path.basename(folder)) ? path.dirname(folder) : undefined;
}

/**
 * A VS Code variable with a colon (`${command:…}`, `${config:…}`) left after the conversion: the
 * loader cannot give it a value, and `${VAR}` expansion leaves it as written. (`${workspaceFolder}`
 * outside a workspace reads as a `${VAR}`, and the unset-variable warning says so.)
 */
const UNEXPANDABLE = /\$\{[A-Za-z]+:(?!-)[^}]*\}/g;

/** Each VS Code variable left in a converted entry, once, with the first field that has it. */
export function unexpandableVariables(entry: Record<string, unknown>): Array<{ variable: string; field: string }> {
  const found = new Map<string, string>();
  const visit = (value: unknown, field: string) => {
    if (typeof value === 'string') for (const [variable] of value.matchAll(UNEXPANDABLE)) if (!found.has(variable)) found.set(variable, field);
    if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${field}[${index}]`));
    if (isJsonObject(value)) for (const [key, item] of Object.entries(value)) visit(item, field === '' ? key : `${field}.${key}`);
  };
  visit(entry, '');
  return [...found].map(([variable, field]) => ({ variable, field }));
}
