/**
 * Which command reads which global option. A global option is parsed for every command, but only
 * some read it: `add --approve always` or `tasks --exposure eager` did nothing, and said nothing,
 * and `call --exposure eager` failed with "call_mcp_tool is switched off by the permissions". This
 * table is the one place that says which; the CLI refuses an option on a command that does not
 * read it, and each command's --help lists only the global options it reads.
 */

/** Read by every command (the SDK's warnings go through its logger): never refused. */
export const READ_BY_EVERY_COMMAND: readonly string[] = ['--verbose'];

/** The files and the trust discovery applies to them. */
const DISCOVERY = ['--config', '--project', '--project-servers'];
/** Which servers may be used. */
const SERVER_PATTERNS = ['--allow', '--deny'];
/** Which tools are shown and may be called. */
const TOOL_PATTERNS = ['--allow-tool', '--deny-tool'];

/** What `search` reads to search the configured servers' index; `search --registry` reads none of it, and refuses it. */
export const READ_BY_INDEX_SEARCH_ONLY: readonly string[] = [...DISCOVERY, ...SERVER_PATTERNS, ...TOOL_PATTERNS];

/** By command path (`approvals revoke`): the global options its action reads, besides READ_BY_EVERY_COMMAND. */
export const GLOBAL_OPTIONS_READ: Readonly<Record<string, readonly string[]>> = {
  // The demo runs on its built-in config, so no discovery flag reaches it.
  demo: [...SERVER_PATTERNS, ...TOOL_PATTERNS, '--exposure'],
  servers: [...DISCOVERY, ...SERVER_PATTERNS, ...TOOL_PATTERNS, '--exposure'],
  index: [...DISCOVERY, ...SERVER_PATTERNS],
  load: [...DISCOVERY, ...SERVER_PATTERNS, ...TOOL_PATTERNS],
  call: [...DISCOVERY, ...SERVER_PATTERNS, ...TOOL_PATTERNS, '--approve'],
  read: [...DISCOVERY, ...SERVER_PATTERNS],
  prompts: [...DISCOVERY, ...SERVER_PATTERNS],
  prompt: [...DISCOVERY, ...SERVER_PATTERNS],
  doctor: [...DISCOVERY, ...SERVER_PATTERNS],
  serve: [...DISCOVERY, ...SERVER_PATTERNS, ...TOOL_PATTERNS, '--approve', '--exposure'],
  approve: DISCOVERY,
  login: DISCOVERY,
  logout: DISCOVERY,
  add: ['--project'],
  'add-json': ['--project'],
  get: [...DISCOVERY, ...SERVER_PATTERNS],
  remove: ['--project'],
  approvals: [],
  'approvals revoke': [],
  tasks: [],
  import: ['--project'],
  install: ['--project'],
  search: READ_BY_INDEX_SEARCH_ONLY,
};

/** Whether the command at `path` reads the global option `flag` (its long name). */
export function readsGlobalOption(path: string, flag: string): boolean {
  return READ_BY_EVERY_COMMAND.includes(flag) || (GLOBAL_OPTIONS_READ[path] ?? []).includes(flag);
}

/** The commands that read `flag`, in the table's order. */
export function readersOf(flag: string): string[] {
  return Object.keys(GLOBAL_OPTIONS_READ).filter((path) => readsGlobalOption(path, flag));
}

/** "a", "a and b", "a, b and c" */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** The refusal of `flag` on the command at `path`, naming the commands that read it. */
export function unreadGlobalOptionMessage(path: string, flag: string): string {
  return `error: ${path} does not read ${flag}; ${listed(readersOf(flag))} do`;
}

/** For the top-level --help: each group of global options that only some commands read, and those commands. */
export function globalOptionReadersHelp(flags: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const flag of flags.filter((candidate) => !READ_BY_EVERY_COMMAND.includes(candidate))) {
    const readers = readersOf(flag).join(', ');
    groups.set(readers, [...(groups.get(readers) ?? []), flag]);
  }
  const lines = [...groups].map(([readers, grouped]) => `  ${grouped.join(', ')}: ${readers}`);
  return `\nOptions read only by some commands (another command refuses them):\n${lines.join('\n')}`;
}
