/**
 * URL-mode elicitation in both eras behind one handler: `elicitationModes: ['url']` declares
 * `elicitation.url`, and a server's request to open a page (a legacy `elicitation/create` with
 * mode url, or a 2026-07-28 `input_required` URL request) reaches `handlers.elicitation` with the
 * URL. Without it the capability is absent and a server does not ask. A legacy tool that fails
 * with -32042 (URL elicitation required) says which site to open.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import type { HostRequestContext } from '../src/connection/host-handlers.js';
import { targetDomain } from '../src/connection/url-elicitation.js';
import { rejectionOf } from './support/fixtures.js';
import { HOST_FEATURE_SERVERS, managerPerTest, textOf } from './support/host-feature-servers.js';

const PAGE_URL = 'https://pay.example.com/checkout?order=7';

const connected = managerPerTest('shop');

describe.each(HOST_FEATURE_SERVERS)('URL-mode elicitation, $era', ({ config }) => {
  it('reaches the handler with the URL when it declares url mode; its answer goes back to the server', async () => {
    const elicitation = vi.fn(async (_params: ElicitRequest['params'], _context: HostRequestContext): Promise<ElicitResult> => ({ action: 'accept' }));
    const shop = await connected(config, { elicitation, elicitationModes: ['url'] });
    const result = await shop.callTool('shop', 'open-page', {});
    expect(textOf(result)).toBe('page: accept');
    expect(elicitation).toHaveBeenCalledTimes(1);
    const [params, context] = elicitation.mock.calls[0]!;
    expect(params).toMatchObject({ mode: 'url', url: PAGE_URL, message: 'Pay for the order' });
    expect(context.server).toBe('shop');
  });

  it('a declined page is the server\'s to handle: the decline reaches it', async () => {
    const shop = await connected(config, { elicitation: async () => ({ action: 'decline' }), elicitationModes: ['form', 'url'] });
    expect(textOf(await shop.callTool('shop', 'open-page', {}))).toBe('page: decline');
  });

  it('a form-only handler (the default) does not declare url mode, so the server does not ask it', async () => {
    const elicitation = vi.fn(async (): Promise<ElicitResult> => ({ action: 'accept' }));
    const shop = await connected(config, { elicitation });
    expect(textOf(await shop.callTool('shop', 'open-page', {}))).toBe('not asked: the client does not open URLs');
    expect(elicitation).not.toHaveBeenCalled();
  });
});

describe('a page done out of band (notifications/elicitation/complete, 2025-11-25)', () => {
  const LEGACY = HOST_FEATURE_SERVERS[1]!.config;
  const accept = async (): Promise<ElicitResult> => ({ action: 'accept' });

  it('reaches handlers.elicitationComplete once, for the page the server asked and the handler accepted; a notice for any other id is ignored', async () => {
    const completions: unknown[] = [];
    const shop = await connected(LEGACY, { elicitation: accept, elicitationModes: ['url'], elicitationComplete: (completion) => void completions.push(completion) });
    expect(textOf(await shop.callTool('shop', 'open-page-and-finish', {}))).toBe('page: done');
    await vi.waitFor(() => expect(completions).toHaveLength(1));
    expect(completions).toEqual([{ server: 'shop', elicitationId: 'order-8' }]);
  });

  it('a page the handler declined is not open: its notice is ignored', async () => {
    const elicitationComplete = vi.fn();
    const shop = await connected(LEGACY, { elicitation: async () => ({ action: 'decline' }), elicitationModes: ['url'], elicitationComplete });
    expect(textOf(await shop.callTool('shop', 'open-page-and-finish', {}))).toBe('page: decline');
    expect(elicitationComplete).not.toHaveBeenCalled();
  });
});

describe('URL elicitation required (-32042)', () => {
  it('a legacy tool call refused with -32042 fails naming the site to open and the server\'s reason', async () => {
    const shop = await connected(HOST_FEATURE_SERVERS[1]!.config, {});
    const error = await rejectionOf(shop.callTool('shop', 'needs-page', {}));
    expect(error.message).toContain('MCP error -32042');
    expect(error.message).toContain('the server needs the user to open a page first: pay.example.com (Connect your account first)');
  });
});

describe('the domain shown before a page is opened', () => {
  it('is the URL\'s host (not what the user part claims), punycode visible, control characters gone; not a web address: none', () => {
    expect(targetDomain('https://pay.example.com:8443/x?y=1')).toBe('pay.example.com:8443');
    expect(targetDomain('https://pay.example.com@evil.example/')).toBe('evil.example');
    expect(targetDomain('https://exämple.com/')).toBe('xn--exmple-cua.com');
    expect(targetDomain('https://pay.exa\nmple.com\t/')).toBe('pay.example.com');
    expect(targetDomain('https://a\u0007b.example/')).toBeUndefined();
    expect(targetDomain('javascript:alert(1)')).toBeUndefined();
    expect(targetDomain('not a url')).toBeUndefined();
  });
});
