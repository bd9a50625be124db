/**
 * `call` on a terminal when a server asks the person to open a page (URL-mode elicitation, both
 * eras): the prompt names the server, the domain and the whole URL, and nothing opens without a
 * "y". The opener is injected here; the command line's own is the platform's (xdg-open / open).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describePageRequest, MAX_WAITING_PAGES, pageOpeningHandlers, type PageOpening } from '../src/cli/page-opening.js';
import type { HostRequestContext } from '../src/connection/host-handlers.js';
import { HOST_FEATURE_SERVERS } from './support/host-feature-servers.js';
import { cliInTerminal } from './support/terminal.js';

const PAGE = { mode: 'url' as const, message: 'Pay for the order', url: 'https://pay.example.com/checkout?order=7', elicitationId: 'order-7' };
const context: HostRequestContext = { server: 'shop', signal: new AbortController().signal };

function opening(answer: boolean) {
  const asked: string[] = [];
  const told: string[] = [];
  const open = vi.fn((_url: URL) => {});
  const fake: PageOpening = { ask: async (question) => (asked.push(question), answer), open, tell: (text) => void told.push(text) };
  return { fake, asked, told, open };
}

describe('asking before a page opens', () => {
  it('declares only url mode: the command line shows no forms', () => {
    expect(pageOpeningHandlers(opening(true).fake).elicitationModes).toEqual(['url']);
  });

  it('"y" opens the URL with the opener and accepts', async () => {
    const { fake, asked, open } = opening(true);
    expect(await pageOpeningHandlers(fake).elicitation!(PAGE, context)).toEqual({ action: 'accept' });
    expect(open).toHaveBeenCalledWith(new URL(PAGE.url));
    expect(asked[0]).toBe(`${describePageRequest('shop', 'pay.example.com', PAGE.url, PAGE.message)}\nOpen it in your browser? [y/N] `);
  });

  it('anything else declines and opens nothing', async () => {
    const { fake, open } = opening(false);
    expect(await pageOpeningHandlers(fake).elicitation!(PAGE, context)).toEqual({ action: 'decline' });
    expect(open).not.toHaveBeenCalled();
  });

  it('an address that is not a web page is declined without asking', async () => {
    const { fake, asked, told, open } = opening(true);
    expect(await pageOpeningHandlers(fake).elicitation!({ ...PAGE, url: 'file:///etc/passwd' }, context)).toEqual({ action: 'decline' });
    expect(asked).toEqual([]);
    expect(open).not.toHaveBeenCalled();
    expect(told[0]).toContain('not a web page; it was not opened');
  });

  it(`a server asking many pages at once has ${MAX_WAITING_PAGES} asked; the rest are declined unasked, the person told once`, async () => {
    const asked: string[] = [];
    const told: string[] = [];
    const answers: Array<(yes: boolean) => void> = [];
    const fake: PageOpening = {
      ask: (question) => (asked.push(question), new Promise((resolve) => answers.push(resolve))),
      open: () => {},
      tell: (text) => void told.push(text),
    };
    const { elicitation } = pageOpeningHandlers(fake);
    const pages = Array.from({ length: 1000 }, (_, i) => elicitation!({ ...PAGE, url: `https://pay.example.com/${i}` }, context));
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toHaveLength(MAX_WAITING_PAGES);
    expect(told).toEqual([`MCP server "shop" asked to open more pages while ${MAX_WAITING_PAGES} wait for your answer; those were declined without asking.`]);
    for (const answer of answers) answer(false);
    expect((await Promise.all(pages)).every((page) => page.action === 'decline')).toBe(true);
  });

  it('the domain leads, the user part of a URL cannot pose as it, and control characters are escaped', async () => {
    const { fake, asked } = opening(false);
    await pageOpeningHandlers(fake).elicitation!({ ...PAGE, url: 'https://pay.example.com@evil.example/x', message: 'pay\u001b[2Jnow' }, context);
    expect(asked[0]!.split('\n')[0]).toBe('MCP server "shop" asks you to open a page on evil.example');
    expect(asked[0]).not.toContain('\u001b');
  });
});

describe.each(HOST_FEATURE_SERVERS)('`call` on a terminal, $era', ({ config }) => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'mcp-page-'));
    writeFileSync(join(home, 'servers.json'), JSON.stringify({ mcpServers: { shop: config } }));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('shows the domain and the URL, and "n" declines: the server hears the decline', async () => {
    const output = await cliInTerminal(['--config', join(home, 'servers.json'), 'call', 'shop', 'open-page'], {
      cwd: home,
      env: { HOME: home },
      question: 'Open it in your browser? [y/N]',
      answer: 'n',
    });
    expect(output).toContain('MCP server "shop" asks you to open a page on pay.example.com');
    expect(output).toContain('address: https://pay.example.com/checkout?order=7');
    expect(output).toContain('page: decline');
  }, 40_000);
});
