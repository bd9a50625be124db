/**
 * The manager's methods as plain JavaScript calls them, with a wrong type in each place: every call
 * rejects at once with a TypeError that names the place and the value's kind, nothing is sent, and
 * the connection keeps answering. Before, a server name that was not a string left `connect`
 * waiting forever, a tool name or URI that was not one crashed the process as its failure was
 * worded, and arguments that were not an object reached the server. Real server-everything over stdio.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { EVERYTHING_SCRIPT, textOf } from './support/everything.js';

let home: string;
let previousHome: string | undefined;
let manager: McpConnectionManager;
const everything = { command: process.execPath, args: [EVERYTHING_SCRIPT, 'stdio'] };

beforeAll(async () => {
  previousHome = process.env.HOME;
  home = mkdtempSync(join(tmpdir(), 'mcp-call-argument-types-'));
  process.env.HOME = home;
  manager = new McpConnectionManager({ logger: silentLogger });
  await manager.connect('everything', everything);
}, 30_000);
afterAll(async () => {
  await manager.dispose();
  process.env.HOME = previousHome;
  rmSync(home, { recursive: true, force: true });
});

/** The rejection, or a failure after 5 s: a call that is never answered must fail the test, not hang it. */
async function rejectionWithin(call: () => Promise<unknown>): Promise<Error> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5_000);
  });
  try {
    await Promise.race([call(), late]);
  } catch (error) {
    return error as Error;
  } finally {
    clearTimeout(timer);
  }
  throw new Error('expected the call to reject, but it resolved');
}

// Plain JavaScript: nothing checks these types at compile time.
const loose = (): any => manager;

/** An object that throws on every read. */
function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

describe('wrong types from plain JavaScript', () => {
  it.each([
    ['connect with a number for the server name', () => loose().connect(42, everything), 'connect: the server name must be a non-empty string, not 42.'],
    ['connect with no server name', () => loose().connect(undefined, everything), 'connect: the server name must be a non-empty string, not undefined.'],
    ['connect with null for the definition', () => loose().connect('notes', null), 'connect: the server definition must be an object ({ command, args } or { url }), not null.'],
    ['connect with a command line for the definition', () => loose().connect('notes', 'node server.mjs'), 'connect: the server definition must be an object ({ command, args } or { url }), not "node server.mjs".'],
    ['configure with null for a definition', () => loose().configure({ broken: null }), 'configure: the definition of server "broken" must be an object ({ command, args } or { url }), not null.'],
    ['configure with a config file\'s { mcpServers } wrapper, as LangChain\'s MultiServerMCPClient takes it', () => loose().configure({ mcpServers: { notes: everything } }), 'configure: the servers go by name ({ notes: { command, args } }), not inside { mcpServers: … } as a config file writes them: pass its mcpServers object.'],
    ['configure with a list of definitions', () => loose().configure([everything]), 'configure: the servers must be an object of server definitions by name, not an array.'],
    ['callTool with a number for the server name', () => loose().callTool(42, 'echo', { message: 'x' }), 'callTool: the server name must be a non-empty string, not 42.'],
    ['callTool with a number for the tool name', () => loose().callTool('everything', 42, {}), 'callTool: the tool name must be a string, not 42.'],
    ['readResource with a number for the URI', () => loose().readResource('everything', 42), 'readResource: the resource URI must be a string, not 42.'],
    // Code moved from the SDK's Client writes its one-object form first: the message says the form here.
    ['getPrompt as the SDK Client takes it, with the server name', () => loose().getPrompt('everything', { name: 'simple-prompt' }), "getPrompt: the prompt name must be a string, not an object: write getPrompt(server, name, arguments) here, where the SDK's Client takes getPrompt({ name, arguments })."],
    ['callTool as the SDK Client takes it, with the server name', () => loose().callTool('everything', { name: 'echo', arguments: { message: 'x' } }), "callTool: the tool name must be a string, not an object: write callTool(server, name, arguments) here, where the SDK's Client takes callTool({ name, arguments })."],
    ['callTool as the SDK Client takes it, alone', () => loose().callTool({ name: 'echo', arguments: { message: 'x' } }), "callTool: the server name must be a non-empty string, not an object: write callTool(server, name, arguments) here, where the SDK's Client takes callTool({ name, arguments })."],
    ['readResource as the SDK Client takes it', () => loose().readResource({ uri: 'demo://resource/static/document/architecture.md' }), "readResource: the server name must be a non-empty string, not an object: write readResource(server, uri) here, where the SDK's Client takes readResource({ uri })."],
    ['complete with a prompt name for the ref', () => loose().complete('everything', { ref: 'completable-prompt', argument: { name: 'department', value: 'E' } }), `complete: the ref must be { type: 'ref/prompt', name } or { type: 'ref/resource', uri }, not "completable-prompt".`],
    ['complete with nothing to complete', () => loose().complete('everything'), `complete: the ref must be { type: 'ref/prompt', name } or { type: 'ref/resource', uri }, not undefined.`],
    ['complete with the argument as its value alone', () => loose().complete('everything', { ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: 'E' }), 'complete: the argument must be { name, value } with two strings, not "E".'],
    ['callTool with null arguments', () => loose().callTool('everything', 'echo', null), 'callTool: the arguments must be an object of named values ({ name: value }), not null.'],
    ['callTool with arguments as JSON text', () => loose().callTool('everything', 'echo', '{"message":"x"}'), 'callTool: the arguments must be an object of named values ({ name: value }), not "{\\"message\\":\\"x\\"}".'],
    ['callTool with an array of arguments', () => loose().callTool('everything', 'echo', ['x']), 'callTool: the arguments must be an object of named values ({ name: value }), not an array.'],
    ['callTool with a string time limit', () => loose().callTool('everything', 'echo', { message: 'x' }, { timeoutMs: '5s' }), 'callTool: the timeoutMs option must be a number of milliseconds above 0 and at most 2147483647, not "5s".'],
    ['callTool with a string for the signal', () => loose().callTool('everything', 'echo', { message: 'x' }, { signal: 'stop' }), 'callTool: the signal option must be an AbortSignal, not "stop".'],
    ['callTool with a revoked Proxy for the arguments', () => loose().callTool('everything', 'echo', revokedProxy()), "callTool: a field of the request could not be read (reading it threw \"Cannot perform 'IsArray' on a proxy that has been revoked\")."],
    ['callTool with a number for onProgress', () => loose().callTool('everything', 'echo', { message: 'x' }, { onProgress: 1 }), 'callTool: the onProgress option must be a function, not 1.'],
  ])('%s: a TypeError that says so', async (_case, call, message) => {
    const error = await rejectionWithin(call);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(message);
  });

  it('callTool with arguments whose getter throws: rejected INVALID_ARGUMENTS at once, and the connection keeps answering', async () => {
    const args = { message: 'x', get detail(): string { throw new Error('getter boom'); } };
    const error = await rejectionWithin(() => manager.callTool('everything', 'echo', args));
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: 'MCP server "everything": the arguments for tool "echo" could not be read (reading them threw "getter boom"), so the call was not sent. Pass plain data.',
    });
    expect(manager.getState('everything')).toBe('connected');
    expect(textOf(await manager.callTool('everything', 'echo', { message: 'after the getter' }))).toBe('Echo: after the getter');
  });

  it('callTool with arguments that contain a cycle: INVALID_ARGUMENTS naming the cycle (was "nested deeper than 256 levels"), the connection keeps answering', async () => {
    const parent: Record<string, unknown> = { message: 'x' };
    parent.parent = parent;
    const error = await rejectionWithin(() => manager.callTool('everything', 'echo', parent));
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: 'MCP server "everything": the arguments for tool "echo" contain a cycle ("parent" contains itself), which JSON cannot write, so the call was not sent. Pass plain data in which no object contains itself.',
    });
    expect(textOf(await manager.callTool('everything', 'echo', { message: 'after the cycle' }))).toBe('Echo: after the cycle');
  });

  it('callTool with a BigInt in its arguments: INVALID_ARGUMENTS saying JSON has none (was REQUEST_FAILED from JSON.stringify)', async () => {
    const error = await rejectionWithin(() => manager.callTool('everything', 'echo', { message: 'x', count: { n: 10n } }));
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: 'MCP server "everything": the arguments for tool "echo" contain a BigInt, which JSON cannot write, so the call was not sent. Pass the number as a string, or as a number if it fits.',
    });
    expect(manager.getState('everything')).toBe('connected');
  });

  it('leaves the connection answering, and configures no server under a coerced name', async () => {
    expect(textOf(await manager.callTool('everything', 'echo', { message: 'still here' }))).toBe('Echo: still here');
    expect(manager.requestsInFlight('everything')).toBe(0);
    expect(manager.getState('42')).toBe('disconnected');
    expect(manager.serverStatus('42')).toBeUndefined();
  });
});
