/**
 * How the credentials an entry writes are hidden where the entry itself is shown or held, `${VAR}`s
 * unexpanded: `get` and the previews of `import`, `install` and `approve` (REDACTED), a sealed
 * definition (SEALED, src/sealed-config.ts). One rule for both: a credential written literally
 * is hidden whole; one that reads a variable keeps its references, which name a value and hold
 * none, and loses what is written literally in it (`--token abc${X}` → `--token [redacted]${X}`).
 */
import { referencedVariables, replaceLiteralText } from './config/expand-variables.js';
import type { FoundSecret } from './literal-secrets.js';
import { longestFirst } from './redact.js';

/** What may open a value besides references: an auth scheme (`Bearer ${TOKEN}`) and punctuation. */
const SCHEME_OR_PUNCTUATION = /^(?:[A-Za-z][\w-]*\s+)?[^A-Za-z0-9]*$/;
/** What may stand between references, and be a default: punctuation (`${USER}:${PASSWORD}`). */
const PUNCTUATION = /^[^A-Za-z0-9]*$/;

/**
 * `value` with every piece written literally in it replaced by `marker` (a default too:
 * `${KEY:-[redacted]}`), but for an auth scheme opening it and punctuation: those say nothing
 * secret. A value this leaves as it is holds nothing secret but what its references name.
 */
export function hideLiteralParts(value: string, marker: string): string {
  return replaceLiteralText(value, (literal, first) => ((first ? SCHEME_OR_PUNCTUATION : PUNCTUATION).test(literal) ? literal : marker));
}

/**
 * Hides `secrets` (those long enough to be credentials, longest first) in a text of the entry:
 * one without a `${VAR}` becomes `marker`, one with references loses its literal parts
 * (`hideLiteralParts`). A whole that reads a variable (a URL's query, `user:password`, a header
 * value with its scheme: `found` says which) is left to its parts, so `?key=${KEY}&region=eu`
 * reads `?key=${KEY}&region=[redacted]`, not `?[redacted]${KEY}[redacted]`.
 */
export function writtenSecretHider(secrets: readonly string[], found: readonly FoundSecret[], marker: string): (text: string) => string {
  const wholes = new Set(found.filter((secret) => secret.whole).map((secret) => secret.value));
  const replacements = longestFirst(secrets).flatMap((secret): Array<[string, string]> => {
    if (referencedVariables(secret).length === 0) return [[secret, marker]];
    return wholes.has(secret) ? [] : [[secret, hideLiteralParts(secret, marker)]];
  });
  return (text) => replacements.reduce((hidden, [secret, shown]) => hidden.replaceAll(secret, shown), text);
}
