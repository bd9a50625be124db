import type { McpServerConfig } from '../../machines/types.js';
import { referencedVariables, writtenDefaults } from '../config/expand-variables.js';
import { longestFirst, secretsOf } from '../redact.js';

/**
 * The secrets of an entry as its file writes it, for showing that entry (`get`, and what `import`,
 * `install` and `approve` show before they write or allow it): `secretsOf`'s, except where one
 * reads a `${VAR}`: a variable names a value and holds none (the definition lists the variables
 * the server reads), so of such a secret only the defaults written in it (`${VAR:-default}`) are.
 */
export function writtenSecretsOf(written: McpServerConfig): string[] {
  return longestFirst(secretsOf(written).flatMap((secret) => (referencedVariables(secret).length > 0 ? writtenDefaults(secret) : [secret])));
}
