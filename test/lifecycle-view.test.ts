/// <reference lib="dom" />
/**
 * The live lifecycle view (`startLifecycleView`), tested as a user sees it: the demo's servers
 * run for real (the notes server over stdio, the weather server over Streamable HTTP), the page
 * is opened in headless Chromium, and a server process is killed. The screenshot is saved under
 * test-artifacts/ (gitignored).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type Browser } from '../scripts/chromium.js';
import { killNotesServer, startDemoServers, type DemoServers } from '../scripts/demo-servers.js';
import { silentLogger } from '../src/logger.js';
import { McpConnectionManager } from '../src/manager.js';
import { startLifecycleView, type LifecycleView } from '../src/view/lifecycle-view.js';
import type { ServerRow } from '../src/view/server-rows.js';
import { everythingStdio } from './support/everything.js';
import { withoutChromium } from './support/chromium.js';
import { CLI_COMMAND } from './support/cli.js';

const EXAMPLES = new URL('../examples/servers/', import.meta.url);
const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
const SECRET = 'view-secret-4f9a2c';
/** Long enough that a loaded machine's page still catches the server between its loss and the retry. */
const FIRST_BACKOFF_MS = 2_500;

let demo: DemoServers;
let manager: McpConnectionManager;
let view: LifecycleView;

beforeAll(async () => {
  demo = await startDemoServers();
  manager = new McpConnectionManager({ logger: silentLogger, defaults: { backoff: { initialDelayMs: FIRST_BACKOFF_MS } } });
  manager.configure({ ...demo.servers, notes: { ...demo.servers.notes, env: { NOTES_TOKEN: SECRET } } });
  view = await startLifecycleView(manager);
});

afterAll(async () => {
  await view?.stop();
  await manager?.dispose();
  await demo?.close();
});

describe('the lifecycle view server', () => {
  const withoutToken = () => {
    const url = new URL(view.url);
    url.searchParams.delete('token');
    return url;
  };

  it('answers 403 to a request without the token, with a wrong token, or from another origin', async () => {
    expect((await fetch(withoutToken())).status).toBe(403);
    const wrong = new URL(view.url);
    wrong.searchParams.set('token', 'x'.repeat(32));
    expect((await fetch(wrong)).status).toBe(403);
    const events = new URL('events', view.url);
    events.search = new URL(view.url).search;
    expect((await fetch(events, { headers: { Origin: 'https://example.com' } })).status).toBe(403);
    expect((await fetch(view.url)).status).toBe(200);
  });

  it('answers 403 to a request addressed to another host name (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const url = new URL(view.url);
      request({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers: { Host: `attacker.example:${url.port}` } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
  });

  it('serves a page that loads nothing from elsewhere', async () => {
    const response = await fetch(view.url);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await response.text()).not.toMatch(/(src|href)="https?:|@import|url\(http/);
  });
});

/** The rows the page is sent (`/events`), until one of `server` passes `test`; bounded by `timeoutMs`. */
async function streamedRowUntil(view: LifecycleView, server: string, test: (row: ServerRow) => boolean, timeoutMs = 15_000): Promise<ServerRow> {
  const events = new URL('events', view.url);
  events.search = new URL(view.url).search;
  const response = await fetch(events, { signal: AbortSignal.timeout(timeoutMs) });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before ${server} showed what was expected`);
      buffered += value;
      const messages = buffered.split('\n\n');
      buffered = messages.pop()!;
      for (const message of messages) {
        if (!message.startsWith('data: ')) continue;
        const data = JSON.parse(message.slice('data: '.length)) as { type: string; row?: ServerRow; rows?: ServerRow[] };
        const rows = data.rows ?? (data.row ? [data.row] : []);
        const match = rows.find((row) => row.name === server && test(row));
        if (match) return match;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

describe('requests in flight', () => {
  let everything: McpConnectionManager;
  let everythingView: LifecycleView;
  beforeAll(async () => {
    everything = new McpConnectionManager({ logger: silentLogger });
    everything.configure({ everything: everythingStdio() });
    everythingView = await startLifecycleView(everything);
  });
  afterAll(async () => {
    await everythingView?.stop();
    await everything?.dispose();
  });

  it('a connected server shows how many requests are running on it: 0, then 1 while a call runs, then 0 again', async () => {
    await everything.connect('everything');
    expect((await streamedRowUntil(everythingView, 'everything', (row) => row.state === 'connected')).inFlight).toBe(0);
    const controller = new AbortController();
    const call = everything.callTool('everything', 'trigger-long-running-operation', { duration: 30, steps: 1 }, { signal: controller.signal });
    expect((await streamedRowUntil(everythingView, 'everything', (row) => row.inFlight !== 0)).inFlight).toBe(1);
    controller.abort();
    await call.catch(() => {});
    expect((await streamedRowUntil(everythingView, 'everything', (row) => row.inFlight !== 1)).inFlight).toBe(0);
  });
});

describe('text from a server', () => {
  /** A right-to-left override (the rest reads reversed: "exe.txt" shows as "txt.exe") and a clear-screen escape. */
  const HOSTILE = 'evil \u202etxt.exe \u001b[2J';
  const HOSTILE_NAME = `named ${HOSTILE}`;
  let hostile: McpConnectionManager;
  let hostileView: LifecycleView;
  beforeAll(async () => {
    hostile = new McpConnectionManager({ logger: silentLogger, defaults: { backoff: { initialDelayMs: 60_000 } } });
    hostile.configure({
      hostile: { command: process.execPath, args: ['-e', `process.stderr.write(${JSON.stringify(`${HOSTILE}\n`)}); process.exit(3)`], description: `d ${HOSTILE}` },
      [HOSTILE_NAME]: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
    });
    hostileView = await startLifecycleView(hostile);
  });
  afterAll(async () => {
    await hostileView?.stop();
    await hostile?.dispose();
  });

  it('is sent to the page with its bidi overrides and control characters escaped, as a terminal shows them', async () => {
    void hostile.connect('hostile').catch(() => {});
    const row = await streamedRowUntil(hostileView, 'hostile', (candidate) => candidate.lastError?.stderrTail !== undefined);
    const shown = [row.description, row.lastError?.message, row.lastError?.stderrTail].join('\n');
    expect(shown).not.toMatch(/[\u202e\u001b]/);
    expect(row.lastError?.stderrTail).toContain('evil \\u{202e}txt.exe \\x1b[2J');
    expect(row.description).toBe('d evil \\u{202e}txt.exe \\x1b[2J');
  });

  it.skipIf(withoutChromium)('shows a server name from the config escaped in its row and its detail heading, and keeps the name itself as the row\'s key', async () => {
    const shown = 'named evil \\u{202e}txt.exe \\x1b[2J';
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      await page.goto(hostileView.url);
      const line = page.locator('tr.server').filter({ has: page.locator('td.name', { hasText: 'named' }) });
      await expect.poll(() => line.locator('td.name').textContent(), { timeout: 15_000 }).toBe(shown);
      expect(await line.getAttribute('data-server')).toBe(HOSTILE_NAME);
      await line.click();
      await expect.poll(() => page.locator('#detail h2').textContent(), { timeout: 15_000 }).toBe(shown);
    } finally {
      await browser.close();
    }
    expect((await streamedRowUntil(hostileView, HOSTILE_NAME, () => true)).shownName).toBe(shown);
  });
});

/** Public states as the page lists them for a server, oldest first. */
function shownStates(page: Page, server: string): Promise<string[]> {
  return page.$$eval(`#detail[data-server="${server}"] ol.transitions li`, (items) => items.map((item) => (item as HTMLElement).dataset.state!).reverse());
}

/** Collapses repeats: connected.idle → connected.busy both read "connected". */
function changes(states: string[]): string[] {
  return states.filter((state, index) => state !== states[index - 1]);
}

describe.skipIf(withoutChromium)('the lifecycle view in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('shows each configured server as a row, its state on the chart and its tool count', async () => {
    await page.goto(view.url);
    await expect.poll(() => page.locator('#status').getAttribute('data-live')).toBe('true');
    await Promise.all([manager.connect('notes'), manager.connect('weather')]);
    await expect.poll(() => page.locator('tr[data-server="notes"]').getAttribute('data-state')).toBe('connected');
    await expect.poll(() => page.locator('tr[data-server="weather"]').getAttribute('data-state')).toBe('connected');
    const tools = manager.getManifest('notes')!.tools.length;
    await expect.poll(() => page.locator('tr[data-server="notes"] td.tools').textContent()).toBe(String(tools));
    // A click opens the server's chart, which highlights the active states: connected and its child.
    await page.locator('tr[data-server="notes"]').click();
    const notes = page.locator('#detail[data-server="notes"]');
    await expect.poll(() => notes.locator('dt:text-is("tools") + dd').textContent()).toBe(String(tools));
    const active = await notes.locator('.chart g.state.active').evaluateAll((groups) => groups.map((group) => (group as SVGGElement).dataset.state));
    expect(active).toContain('connected');
    expect(active.some((path) => path?.startsWith('connected.'))).toBe(true);
  });

  it('shows connected → error → connecting → connected when the server process is killed, within the backoff', { timeout: 30_000 }, async () => {
    const before = (await shownStates(page, 'notes')).length;
    await killNotesServer(manager);

    // While it waits, the row tells when the next attempt comes.
    const notes = page.locator('#detail[data-server="notes"]');
    await expect.poll(() => notes.locator('.path').textContent(), { timeout: FIRST_BACKOFF_MS }).toBe('error.retrying');
    await expect.poll(() => notes.locator('dt:text-is("next retry") + dd').textContent()).toMatch(/^in \d+\.\d s|^now$/);
    await expect.poll(() => notes.locator('.error .message').textContent()).toContain('notes');
    // The notes server writes its pid to stderr when it starts: the tail comes with the error.
    await expect.poll(() => notes.locator('.error pre.stderr').textContent()).toMatch(/notes server ready \(pid \d+\)/);

    // After the backoff, the reconnect and the page's update follow within a few seconds.
    await expect.poll(async () => changes((await shownStates(page, 'notes')).slice(before - 1)), { timeout: FIRST_BACKOFF_MS + 8_000 }).toEqual([
      'connected',
      'error',
      'connecting',
      'connected',
    ]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}lifecycle-view.png`, fullPage: true });
  });

  it('never shows a secret from the config', async () => {
    const html = await page.content();
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain(process.execPath);
  });
});

/** Starts `mcp-statechart <args>`, waits for the view's address on stderr, checks it, then ends the command. */
async function viewOfCommand(args: string[], home: string): Promise<{ page: number; tokenless: number; html: string; stdout: string }> {
  const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, ...args], {
    env: { HOME: home, PATH: process.env.PATH ?? '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      // Generous: starting the CLI through tsx takes seconds on a loaded machine.
      const timer = setTimeout(() => reject(new Error(`no view address on stderr: ${stderr}`)), 60_000);
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        const match = /Lifecycle view: open (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    const response = await fetch(url);
    const html = await response.text();
    const tokenless = (await fetch(url.replace(/\?token=.*/, ''))).status;
    child.stdin.end();
    await exited;
    return { page: response.status, tokenless, html, stdout };
  } finally {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    await exited;
    clearTimeout(timer);
  }
}

describe('the --view flag', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'mcp-view-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('mcp-statechart demo --view prints the page to open, which the token unlocks', async () => {
    const { page, tokenless, html } = await viewOfCommand(['demo', '--view'], home);
    expect(page).toBe(200);
    expect(html).toContain('live lifecycle');
    expect(tokenless).toBe(403);
  }, 180_000);

  it('mcp-statechart serve --view prints it to stderr and keeps stdout for the protocol', async () => {
    const config = join(home, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [fileURLToPath(new URL('notes-server.mjs', EXAMPLES))] } } }));
    const { page, tokenless, stdout } = await viewOfCommand(['--config', config, 'serve', '--view'], home);
    expect(page).toBe(200);
    expect(tokenless).toBe(403);
    expect(stdout).toBe('');
  }, 180_000);
});
