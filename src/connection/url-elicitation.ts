import { UrlElicitationRequiredError } from '@modelcontextprotocol/client';

/** How many of the pages a -32042 error lists are named in its message. */
const MAX_PAGES_NAMED = 3;

// C0 and C1 control characters and the bidirectional overrides: a host name shown to a person must not move the cursor or reorder text.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The host a URL-mode elicitation would send the person to, as they should read it before
 * agreeing (a server may name any URL): the URL parser's host (punycode stays visible as
 * `xn--`), control characters removed. `undefined` when it is not an http(s) URL.
 */
export function targetDomain(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  return parsed.host.replace(CONTROL, '');
}

/**
 * A tool call refused with -32042 (URL elicitation required, 2025-11-25) said so in a line a
 * person can act on: which site to open first, then call again. Other errors: undefined.
 */
export function pagesToOpen(error: unknown): string | undefined {
  if (!(error instanceof UrlElicitationRequiredError)) return undefined;
  const pages = error.elicitations.slice(0, MAX_PAGES_NAMED).map((page) => `${targetDomain(page.url) ?? 'an address that is not a web page'} (${page.message.replace(CONTROL, ' ')})`);
  const more = error.elicitations.length > MAX_PAGES_NAMED ? ` and ${error.elicitations.length - MAX_PAGES_NAMED} more` : '';
  return `the server needs the user to open a page first: ${pages.join('; ')}${more}. Open it from a host that shows URL elicitations, then call again`;
}
