/**
 * How the credentials an entry writes are hidden where the entry itself is shown or held, `${VAR}`s
 * unexpanded: `get` and the previews of `import`, `install` and `approve` (REDACTED), a sealed
 * definition (SEALED, src/sealed-config.ts). One rule for both: a credential written literally
 * is hidden whole; one that reads a variable keeps its references, which name a value and hold
 * none, and loses what is written literally in it (`--token abc${X}` → `--token [redacted]${X}`).
 */
import { referencedVariables, referenceSyntax, replaceLiteralText } from './config/expand-variables.js';
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
  const hiders = longestFirst(secrets).flatMap((secret): Array<(text: string) => string> => {
    if (referencedVariables(secret).length === 0) return [(text) => hideWritten(text, secret, marker)];
    if (wholes.has(secret)) return [];
    const shown = hideLiteralParts(secret, marker);
    return [(text) => text.replaceAll(secret, shown)];
  });
  return (text) => hiders.reduce((hidden, hide) => hide(hidden), text);
}

/**
 * `text` with each occurrence of `secret` (one without references) made `marker`, but for the
 * characters of it that spell a reference of `text`: those name a variable and hold nothing, and
 * hiding them would hide the reference (`${SELF}` read `[redacted]}` for a default `${SELF`).
 * What the occurrence covers of the text around the reference is still hidden.
 */
function hideWritten(text: string, secret: string, marker: string): string {
  if (!text.includes('${')) return text.replaceAll(secret, marker);
  const covered = new Array<boolean>(text.length).fill(false);
  for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) covered.fill(true, at, at + secret.length);
  const syntax = referenceSyntax(text);
  let shown = '';
  for (let index = 0; index < text.length; index++) {
    if (!covered[index] || syntax[index]) shown += text[index];
    else if (index === 0 || !covered[index - 1] || syntax[index - 1]) shown += marker;
  }
  return shown;
}
