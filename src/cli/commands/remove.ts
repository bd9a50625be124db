/** `remove <name> [--scope user|project]`: deletes a server's entry, keeping the rest of the file as it is. */
import { commandWord, quoted } from '../../../machines/control-characters.js';
import { revokeApprovals } from '../../config/project-trust.js';
import { reportDone, reported } from '../command-report.js';
import { configPathForScope, editServerEntries, readConfigObject, serverEntries, type WritableScope } from '../config-file-edit.js';
import { CliError } from '../json-codes.js';
import { unknownServerError } from '../failure-text.js';

export interface RemoveOptions {
  scope?: WritableScope;
  project?: string;
  json?: boolean;
}

interface ScopeFile {
  scope: WritableScope;
  file: string;
  names: string[];
}

/** Each scope's file and the server names it defines. */
function scopeFiles(scopes: WritableScope[], project: string | undefined): Promise<ScopeFile[]> {
  return Promise.all(
    scopes.map(async (scope) => {
      const file = await configPathForScope(scope, project);
      return { scope, file, names: Object.keys(serverEntries(await readConfigObject(file))) };
    }),
  );
}

/**
 * The unknown-server wording of every command, saying which files were searched; when `--scope`
 * missed a name the other scope has, the hint says so.
 */
async function notInScopes(name: string, searched: ScopeFile[], options: RemoveOptions): Promise<CliError> {
  const where = searched.map(({ scope, file }) => `the ${scope} scope (${file})`).join(' or ');
  const configured = [...new Set(searched.flatMap(({ names }) => names))];
  const other: WritableScope | undefined = options.scope === 'user' ? 'project' : options.scope === 'project' ? 'user' : undefined;
  // A broken file in the scope not asked for is no reason to fail differently: it only loses the hint.
  const elsewhere = other === undefined ? [] : await scopeFiles([other], options.project).catch((): ScopeFile[] => []);
  const hint = elsewhere.some(({ names }) => names.includes(name)) ? `${quoted(name)} is in the ${other} scope: run \`mcp-statechart remove ${commandWord(name)} --scope ${other}\`` : undefined;
  return unknownServerError(name, configured, where, hint);
}

export function runRemove(name: string, options: RemoveOptions): Promise<number> {
  return reported(options, async () => {
    const searched = await scopeFiles(options.scope ? [options.scope] : ['user', 'project'], options.project);
    const found = searched.filter(({ names }) => names.includes(name));
    if (found.length === 0) throw await notInScopes(name, searched, options);
    if (found.length > 1) {
      throw new CliError(
        'AMBIGUOUS_SCOPE',
        `${quoted(name)} is defined in both ${found[0]!.file} and ${found[1]!.file}. Say which with --scope user or --scope project; nothing was removed.`,
      );
    }
    const { scope, file } = found[0]!;
    await editServerEntries(file, scope, (servers) => delete servers[name]);
    // A removed project entry's approval would only wait for the same definition to come back.
    if (scope === 'project') await revokeApprovals({}, (approval) => approval.source === file && approval.name === name);
    return reportDone(options, `Removed ${quoted(name)} from ${file} (${scope} scope).`, { name, scope, file });
  });
}
