/**
 * A project's `.mcp.json` is shared with whoever clones the project: an entry written there with a
 * credential as it is (`add --scope project --env TOKEN=…`, `import --scope project`) is pointed out.
 */
import { quoted } from '../../machines/control-characters.js';
import { isJsonObject } from '../config/null-proto.js';
import { literalSecretsFound } from '../literal-secrets.js';

/**
 * The fields of an entry holding a credential as it is, with no `${VAR}`: another client's user
 * file may keep them, a project's `.mcp.json` is shared with everyone who clones the project.
 */
function literalCredentialFields(entry: Record<string, unknown>): string[] {
  const literal = (value: unknown) => typeof value === 'string' && value.length >= 6 && !value.includes('${');
  const named = (key: 'env' | 'headers') => {
    const group = entry[key];
    return isJsonObject(group) ? Object.keys(group).filter((name) => literal(group[name])).map((name) => quoted(`${key}.${name}`)) : [];
  };
  const url = typeof entry.url === 'string' && literalSecretsFound({ url: entry.url }).length > 0 ? ['"url"'] : [];
  const args = Array.isArray(entry.args) && literalSecretsFound({ args: entry.args.filter((arg) => typeof arg === 'string') }).length > 0 ? ['"args"'] : [];
  return [...named('env'), ...named('headers'), ...url, ...args];
}

/** The sentence saying so, naming the fields and never their values; undefined when there is none. */
export function sharedCredentialsNotice(name: string, entry: Record<string, unknown>, file: string): string | undefined {
  const fields = literalCredentialFields(entry);
  return fields.length === 0 ? undefined : `${quoted(name)} has credentials written as they are (${fields.join(', ')}), and ${file} is shared with the project: put \${VAR} references there before committing it.`;
}
