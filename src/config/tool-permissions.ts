/**
 * The `permissions` key of a config file: per-tool patterns on `server/tool`, as the library's
 * `mcpTools` takes them. `"permissions": { "mcpTools": { "allow": ["fs/read_*"], "deny": ["*\/delete_*"] } }`.
 * A deny list from any file counts. An allow list only from the user's file or an explicit one:
 * a project's file may take tools away, never hand them out.
 */
import { isJsonObject } from './null-proto.js';
import type { ConfigScope, ConfigProblem, ToolPatterns } from './types.js';

/** More patterns than this in one list is not a config anyone writes by hand. */
const MAX_PATTERNS = 1_000;

function patternList(value: unknown, field: string, file: string, problems: ConfigProblem[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.length <= MAX_PATTERNS && value.every((pattern) => typeof pattern === 'string')) return value;
  problems.push({ severity: 'error', file, field, message: `"${field}" must be a list of at most ${MAX_PATTERNS} strings; it was ignored` });
  return undefined;
}

export function parseToolPermissions(
  file: string,
  scope: ConfigScope,
  permissions: unknown,
): { patterns: ToolPatterns; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  if (permissions === undefined) return { patterns: {}, problems };
  const tools = isJsonObject(permissions) && Object.hasOwn(permissions, 'mcpTools') ? permissions.mcpTools : undefined;
  if (!isJsonObject(permissions) || (tools !== undefined && !isJsonObject(tools))) {
    problems.push({ severity: 'error', file, field: 'permissions', message: '"permissions" must be { "mcpTools": { "allow": [...], "deny": [...] } }; it was ignored' });
    return { patterns: {}, problems };
  }
  if (tools === undefined) return { patterns: {}, problems };
  const deny = patternList(Object.hasOwn(tools, 'deny') ? tools.deny : undefined, 'permissions.mcpTools.deny', file, problems);
  let allow = patternList(Object.hasOwn(tools, 'allow') ? tools.allow : undefined, 'permissions.mcpTools.allow', file, problems);
  if (allow !== undefined && scope === 'project') {
    problems.push({
      severity: 'warning',
      file,
      field: 'permissions.mcpTools.allow',
      message: 'a project file may deny tools but not allow them: its allow list was ignored (put it in your user file)',
    });
    allow = undefined;
  }
  return { patterns: { allow, deny }, problems };
}

/** Deny lists add up; allow lists add up too (only trusted files have them). */
export function mergeToolPatterns(all: readonly ToolPatterns[]): ToolPatterns {
  const allow = all.flatMap((patterns) => patterns.allow ?? []);
  const deny = all.flatMap((patterns) => patterns.deny ?? []);
  const anyAllow = all.some((patterns) => patterns.allow !== undefined);
  return { allow: anyAllow ? allow : undefined, deny: deny.length > 0 ? deny : undefined };
}
