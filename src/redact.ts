import type { McpServerConfig } from '../machines/types.js';

/** Shorter values are too common to hunt for ("1", "dev") and are not credentials. */
const MIN_SECRET_LENGTH = 6;
export const REDACTED = '[redacted]';

/**
 * The values of a server entry that must never be printed: every `env` value and every
 * `headers` value, the credential part of `Authorization: Bearer <token>`, and an OAuth
 * client secret.
 */
export function secretsOf(config: McpServerConfig): string[] {
  const values = [...Object.values(config.env ?? {}), ...Object.values(config.headers ?? {})];
  const clientSecret = (config.oauth as { clientSecret?: unknown } | undefined)?.clientSecret;
  if (typeof clientSecret === 'string') values.push(clientSecret);
  for (const header of Object.values(config.headers ?? {})) {
    const credential = /^\S+\s+(\S+)$/.exec(header)?.[1];
    if (credential) values.push(credential);
  }
  const secrets = values.filter((value) => typeof value === 'string' && value.length >= MIN_SECRET_LENGTH);
  // Longest first, so a token inside a longer header value does not leave the rest behind.
  return [...new Set(secrets)].sort((a, b) => b.length - a.length);
}

export function redact(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) clean = clean.replaceAll(secret, REDACTED);
  return clean;
}

/** The same error, or a copy with a redacted message (name, code and status kept) when it held a secret. */
export function redactError<T>(error: T, secrets: readonly string[]): T | Error {
  if (!(error instanceof Error) || secrets.length === 0) return error;
  const message = redact(error.message, secrets);
  if (message === error.message) return error;
  const copy = new Error(message);
  copy.name = error.name;
  for (const key of ['code', 'status'] as const) {
    if (key in error) Object.assign(copy, { [key]: (error as unknown as Record<string, unknown>)[key] });
  }
  return copy;
}
