/**
 * What an inspector sees of a server config: no URL credentials or query values, nothing a
 * `${VAR}` expanded to (args included), nor any secret of the config a server quotes back (in a
 * tool's description, a result); deep server data is cut, not a stack overflow; and unchanged
 * parts of successive snapshots are sanitized once.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { discoverMcpServers, enabledServers } from '../src/config/index.js';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { redactSecrets, redactUrl, REDACTED, sanitizedObserver, TOO_DEEP } from '../src/inspection/sanitize.js';
import { STDIO_FIXTURE } from './support/fixtures.js';
import { inspectedManager, mark, watch } from './support/inspector-viewer.js';

const API_KEY = 'expanded-api-key-0123456789';
const KEY_ECHO_SERVER = fileURLToPath(new URL('./fixtures/key-echo-server.mjs', import.meta.url));

/** Everything an observer can read of an inspection event, as JSON (actor refs by a mark). */
function visibleText(event: InspectionEvent): string {
  const parts: unknown[] = [event.type];
  if ('snapshot' in event) parts.push(event.snapshot);
  if ('event' in event) parts.push(event.event);
  if (event.type === '@xstate.action') parts.push(event.action);
  if (event.type === '@xstate.actor') parts.push(event.actorRef.getSnapshot());
  return JSON.stringify(parts, (_key, value: unknown) => (typeof value === 'object' && value !== null && 'sessionId' in value ? '[ref]' : value));
}

let manager: McpConnectionManager | undefined;
let root: string | undefined;
afterEach(async () => {
  await manager?.dispose();
  if (root) await fs.rm(root, { recursive: true, force: true });
  manager = root = undefined;
});

describe('URLs', () => {
  it('redacts the user, the password and every query value; keeps host, path and query names', () => {
    expect(redactUrl('https://alice:pw-secret@mcp.example.com/v1/mcp?token=q-secret&mode=fast#x')).toBe(
      `https://${REDACTED}@mcp.example.com/v1/mcp?token=${REDACTED}&mode=${REDACTED}#x`,
    );
    expect(redactUrl('http://127.0.0.1:8080/mcp')).toBe('http://127.0.0.1:8080/mcp');
    expect(redactUrl('not a url')).toBe('not a url');
  });

  it('keeps a URI without an authority without one: only its query values go', () => {
    expect(redactUrl('urn:isbn:123?x=q-secret')).toBe(`urn:isbn:123?x=${REDACTED}`);
    expect(redactUrl('mailto:a@b.example?subject=q-secret')).toBe(`mailto:a@b.example?subject=${REDACTED}`);
    expect(redactUrl('file:///tmp/notes?x=q-secret')).toBe(`file:///tmp/notes?x=${REDACTED}`);
  });

  it('a server config seen by an inspector carries the redacted URL', () => {
    const config = { type: 'http', url: 'https://alice:pw-secret@mcp.example.com/mcp?token=q-secret' };
    expect(JSON.stringify(redactSecrets({ servers: { remote: config } }))).not.toMatch(/pw-secret|q-secret|alice/);
  });
});

describe('many managers in one process', () => {
  it("each inspector redacts its own manager's secrets only: another user's value in B's text reaches B's inspector as sent, A's stays redacted", async () => {
    const seenByA: string[] = [];
    const seenByB: string[] = [];
    const alice = new McpConnectionManager({ logger: silentLogger, inspect: (event) => seenByA.push(visibleText(event)) });
    const bob = new McpConnectionManager({ logger: silentLogger, inspect: (event) => seenByB.push(visibleText(event)) });
    try {
      await alice.connect('leaky', { command: process.execPath, args: [KEY_ECHO_SERVER], env: { API_KEY } });
      await bob.connect('notes', { command: process.execPath, args: [STDIO_FIXTURE] });
      // Bob types Alice's key (a guess): were it redacted in his stream, the redaction would confirm it.
      await bob.callTool('notes', 'echo', { text: `is it ${API_KEY}?` });
      await alice.callTool('leaky', 'whoami');
    } finally {
      await alice.dispose();
      await bob.dispose();
    }
    expect(seenByB.join('\n')).toContain(`is it ${API_KEY}?`);
    expect(seenByB.join('\n')).not.toContain(REDACTED);
    expect(seenByA.join('\n')).toContain(`signed in with ${REDACTED}`);
    expect(seenByA.filter((text) => text.includes(API_KEY))).toEqual([]);
  });
});

describe('values from ${VAR}', () => {
  it('are redacted wherever they landed in a config, args included, and never reach an inspector', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-inspect-vars-'));
    const file = path.join(root, 'mcp.json');
    await fs.writeFile(
      file,
      JSON.stringify({ mcpServers: { local: { command: process.execPath, args: [STDIO_FIXTURE, '--print-env', 'X_${API_KEY}'] } } }),
    );
    const { servers } = await discoverMcpServers({ configPaths: [file], env: { API_KEY } });
    const config = servers.local!.config;
    expect(config.args).toContain(`X_${API_KEY}`);
    expect(redactSecrets(config).args).toContain(`X_${REDACTED}`);

    const seen: string[] = [];
    const record = (event: InspectionEvent) => {
      const parts: unknown[] = [];
      if ('snapshot' in event) parts.push(event.snapshot);
      if ('event' in event) parts.push(event.event);
      if (event.type === '@xstate.actor') parts.push(event.actorRef.getSnapshot());
      seen.push(JSON.stringify(parts, (_key, value: unknown) => (typeof value === 'object' && value !== null && 'sessionId' in value ? '[ref]' : value)));
    };
    manager = new McpConnectionManager({ logger: silentLogger, inspect: record });
    manager.configure(enabledServers(servers));
    await manager.connect('local');
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.join('\n')).not.toContain(API_KEY);
  });
});

describe('a secret the server quotes back', () => {
  it.each([
    ['written literally in the config file', { API_KEY }, {}],
    ['from a ${VAR} in the config file', { API_KEY: '${API_KEY}' }, { API_KEY }],
  ])('%s: no event, snapshot or actor output carries it, its tool description and result do reach the caller', async (_how, env, variables) => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-inspect-quoted-'));
    const file = path.join(root, 'mcp.json');
    await fs.writeFile(file, JSON.stringify({ mcpServers: { leaky: { command: process.execPath, args: [KEY_ECHO_SERVER], env } } }));
    const { servers } = await discoverMcpServers({ configPaths: [file], env: variables });
    const seen: string[] = [];
    manager = new McpConnectionManager({ logger: silentLogger, inspect: (event) => seen.push(visibleText(event)) });
    manager.configure(enabledServers(servers));
    await manager.connect('leaky');
    const result = await manager.callTool('leaky', 'whoami');
    // The caller gets the server's answer as sent: only the inspector's copy is redacted.
    expect(JSON.stringify(result.content)).toContain(`signed in with ${API_KEY}`);
    await manager.dispose();

    const all = seen.join('\n');
    expect(all).toContain(`Answers with the API key ${REDACTED}`);
    expect(all).toContain(`signed in with ${REDACTED}`);
    expect(seen.filter((text) => text.includes(API_KEY))).toEqual([]);
  });

  it('never reaches a page watching through the WebSocket relay', async () => {
    const { inspector, manager: inspected } = await inspectedManager();
    const messages = await watch(inspector);
    inspected.configure({ leaky: { command: process.execPath, args: [KEY_ECHO_SERVER], env: { API_KEY } } });
    await inspected.connect('leaky');
    await inspected.callTool('leaky', 'whoami');
    const received = await mark(inspector, messages, 'after-the-call');
    expect(received.some((message) => message.includes(`signed in with ${REDACTED}`))).toBe(true);
    expect(received.filter((message) => message.includes(API_KEY))).toEqual([]);
  });

  it('is redacted in what comes before its config in the same snapshot', () => {
    const copy = redactSecrets({ manifest: { tools: [{ name: 'q', description: 'uses order-secret-42' }] }, config: { command: 'x', env: { KEY: 'order-secret-42' } } });
    expect(copy.manifest.tools[0]!.description).toBe(`uses ${REDACTED}`);
  });

  it('shorter than 6 characters, is left in what the server says (too common to hunt for), though never shown as an env value', () => {
    const copy = redactSecrets({ config: { command: 'x', env: { PIN: 'ab12', KEY: 'long-secret-77' } }, said: 'pin ab12, key long-secret-77' });
    expect(copy.said).toBe(`pin ab12, key ${REDACTED}`);
    expect(copy.config.env).toEqual({ PIN: REDACTED, KEY: REDACTED });
  });
});

describe('deep and repeated data', () => {
  it('cuts a 100,000-deep tool schema instead of overflowing the stack', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 100_000; level++) schema = { type: 'object', properties: { next: schema } };
    const copy = redactSecrets({ manifest: { tools: [{ name: 'deep', inputSchema: schema }] } });
    expect(JSON.stringify(copy)).toContain(TOO_DEEP);
  });

  it('an observer that throws does not reach the actors', () => {
    const observer = sanitizedObserver(() => {
      throw new Error('inspector broke');
    });
    expect(() => observer.next?.({ type: '@xstate.event', event: { type: 'x' } } as unknown as InspectionEvent)).not.toThrow();
  });

  it('sanitizes an unchanged part of a new snapshot once: the same copy is reused', () => {
    const manifest = { tools: Array.from({ length: 100 }, (_, index) => ({ name: `t${index}`, inputSchema: { type: 'object' } })) };
    const config = { command: 'x', env: { TOKEN: 'env-secret-value' } };
    const first = redactSecrets({ value: 'connected', context: { manifest, config, count: 1 } });
    const second = redactSecrets({ value: 'connected', context: { manifest, config, count: 2 } });
    expect(second.context.manifest).toBe(first.context.manifest);
    expect(second.context.config).toBe(first.context.config);
    expect(second.context.config.env.TOKEN).toBe(REDACTED);
    expect(redactSecrets(first)).toBe(first);
  });
});

describe('events seen by an inspector', () => {
  const seen = (event: object) => {
    let received: unknown;
    sanitizedObserver((inspection) => (received = inspection)).next?.({ type: '@xstate.event', event } as unknown as InspectionEvent);
    return (received as { event: unknown }).event;
  };

  it('an event with nothing to redact reaches the inspector as it is, not copied', () => {
    const event = { type: 'mcp.callTool', server: 'fs', tool: 'read', arguments: { path: '/tmp/a', nested: [{ depth: 1 }] } };
    expect(seen(event)).toBe(event);
  });

  it('an event with a secret field, a server config or nesting deeper than the limit is copied and cleaned', () => {
    const withEnv = { type: 'x', config: { command: 'node', env: { TOKEN: 'env-secret-value' } } };
    expect(JSON.stringify(seen(withEnv))).not.toContain('env-secret-value');
    expect(withEnv.config.env.TOKEN).toBe('env-secret-value');

    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 100; level++) deep = { inner: deep };
    const deepEvent = { type: 'mcp.toolResult', result: deep };
    expect(seen(deepEvent)).not.toBe(deepEvent);
    expect(JSON.stringify(seen(deepEvent))).toContain(TOO_DEEP);
  });
});
