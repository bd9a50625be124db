import type { McpServerConfig } from '../../machines/types.js';
import { writtenDefaults } from '../config/expand-variables.js';
import { literalSecretsFound } from '../literal-secrets.js';
import { REDACTED, secretsOf } from '../redact.js';
import { writtenSecretHider } from '../written-credentials.js';

/**
 * Redacts a text of an entry as its file writes it, for showing that entry (`get`, and what
 * `import`, `install` and `approve` show before they write or allow it): `secretsOf`'s secrets,
 * where one that reads a `${VAR}` keeps its references and loses its literal parts
 * (src/written-credentials.ts), and the defaults written in references (`${VAR:-default}`).
 */
export function writtenRedaction(written: McpServerConfig): (text: string) => string {
  const secrets = secretsOf(written);
  return writtenSecretHider([...secrets, ...secrets.flatMap(writtenDefaults)], literalSecretsFound(written), REDACTED);
}
