/** `remove <name> [--scope user|project]`: deletes a server's entry, keeping the rest of the file as it is. */
import { revokeApprovals } from '../../config/project-trust.js';
import { reportDone, reported } from '../command-report.js';
import { configPathForScope, editServerEntries, readConfigObject, serverEntries, type WritableScope } from '../config-file-edit.js';
import { CliError } from '../json-codes.js';

export interface RemoveOptions {
  scope?: WritableScope;
  project?: string;
  json?: boolean;
}

/** The scopes whose file defines `name`. */
async function scopesDefining(name: string, scopes: WritableScope[], project: string | undefined): Promise<{ scope: WritableScope; file: string }[]> {
  const found: { scope: WritableScope; file: string }[] = [];
  for (const scope of scopes) {
    const file = await configPathForScope(scope, project);
    if (Object.hasOwn(serverEntries(await readConfigObject(file)), name)) found.push({ scope, file });
  }
  return found;
}

export function runRemove(name: string, options: RemoveOptions): Promise<number> {
  return reported(options, async () => {
    const found = await scopesDefining(name, options.scope ? [options.scope] : ['user', 'project'], options.project);
    if (found.length === 0) {
      const where = options.scope ? `the ${options.scope} scope` : 'the user or the project scope';
      throw new CliError('UNKNOWN_SERVER', `No server named "${name}" in ${where}. Run \`mcp-statechart servers\` to see where each one is defined.`);
    }
    if (found.length > 1) {
      throw new CliError(
        'AMBIGUOUS_SCOPE',
        `"${name}" is defined in both ${found[0]!.file} and ${found[1]!.file}. Say which with --scope user or --scope project; nothing was removed.`,
      );
    }
    const { scope, file } = found[0]!;
    await editServerEntries(file, (servers) => delete servers[name]);
    // A removed project entry's approval would only wait for the same definition to come back.
    if (scope === 'project') await revokeApprovals({}, (approval) => approval.source === file && approval.name === name);
    return reportDone(options, `Removed "${name}" from ${file} (${scope} scope).`, { name, scope, file });
  });
}
