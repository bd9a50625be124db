/**
 * URL-mode elicitation on the command line: a server asks the person to open a page (to pay, or
 * to connect another account). The page is never fetched here; the person sees which server
 * asks, the domain it would take them to, the whole URL and the server's reason, and only their
 * "y" opens it, with the platform's opener. Anything else declines.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import type { HostRequestContext, McpHostHandlers } from '../connection/host-handlers.js';
import { targetDomain } from '../connection/url-elicitation.js';
import { WaitingPerServer } from '../connection/waiting-per-server.js';
import { openInBrowser } from '../auth/open-browser.js';
import { answeredYes } from './confirm-change.js';
import { terminalLine } from './terminal-text.js';

export interface PageOpening {
  /** Shows the text and asks; true only for yes. */
  ask(question: string, signal: AbortSignal): Promise<boolean>;
  /** Opens the page for the person. */
  open(url: URL): void;
  /** Where what the person should know is written. */
  tell(text: string): void;
}

const onTerminal: PageOpening = {
  ask: answeredYes,
  open: (url) => void openInBrowser(url),
  tell: (text) => void process.stderr.write(`${text}\n`),
};

/** The question a person answers before a page opens: who asks, the domain (its own line, first), the whole URL, why. Control characters escaped. */
export function describePageRequest(server: string, domain: string, url: string, message: string): string {
  return [
    `MCP server "${terminalLine(server)}" asks you to open a page on ${terminalLine(domain)}`,
    `  address: ${terminalLine(url)}`,
    `  its reason: ${terminalLine(message)}`,
  ].join('\n');
}

/** Page questions of one server that may wait for the person at a time (as `serve` lets 4 wait for its host); more are declined unasked. */
export const MAX_WAITING_PAGES = 4;

/** `handlers` for a command run on a terminal: URL-mode elicitation only (forms are not shown here). */
export function pageOpeningHandlers(opening: PageOpening = onTerminal): Pick<McpHostHandlers, 'elicitation' | 'elicitationModes'> {
  const waiting = new WaitingPerServer(MAX_WAITING_PAGES);
  const ask = (server: string, question: string, signal: AbortSignal): Promise<boolean> =>
    waiting.gate(server, () => opening.ask(question, signal), (first) => {
      // Told once per burst: a server asking thousands of pages must not fill the screen either.
      if (first) opening.tell(`MCP server "${terminalLine(server)}" asked to open more pages while ${MAX_WAITING_PAGES} wait for your answer; those were declined without asking.`);
      return false;
    });
  const elicitation = async (params: ElicitRequest['params'], { server, signal }: HostRequestContext): Promise<ElicitResult> => {
    if (params.mode !== 'url') return { action: 'decline' };
    const domain = targetDomain(params.url);
    if (domain === undefined) {
      opening.tell(`MCP server "${terminalLine(server)}" asked you to open something that is not a web page; it was not opened.`);
      return { action: 'decline' };
    }
    const question = `${describePageRequest(server, domain, params.url, params.message)}\nOpen it in your browser? [y/N] `;
    if (!(await ask(server, question, signal))) return { action: 'decline' };
    opening.open(new URL(params.url));
    return { action: 'accept' };
  };
  return { elicitation, elicitationModes: ['url'] };
}
