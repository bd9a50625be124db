/**
 * call_mcp_tool takes the usual arguments (two strings and a plain `arguments` object) without a
 * zod parse. That shortcut must never let through what the schema refuses, and must hand the
 * tool what the schema would have.
 */
import { describe, expect, it } from 'vitest';
import { callMcpToolSchema, usualCallMcpToolInput } from '../src/tools/schemas.js';

const schema = callMcpToolSchema();

class NotPlain {
  text = 'hi';
}

const INPUTS: Array<[string, unknown]> = [
  ['server and tool', { server: 'files', tool: 'read' }],
  ['server, tool and arguments', { server: 'files', tool: 'read', arguments: { path: '/tmp/a', depth: 2, nested: { deep: [1] } } }],
  ['empty arguments', { server: 'files', tool: 'read', arguments: {} }],
  ['arguments made with no prototype', { server: 'files', tool: 'read', arguments: Object.assign(Object.create(null), { a: 1 }) }],
  ['arguments explicitly undefined', { server: 'files', tool: 'read', arguments: undefined }],
  ['keys the schema does not know', { server: 'files', tool: 'read', extra: true }],
  ['an own __proto__ key in arguments, as JSON.parse makes', JSON.parse('{"server":"files","tool":"read","arguments":{"__proto__":{"x":1}}}')],
  ['arguments as a class instance', { server: 'files', tool: 'read', arguments: new NotPlain() }],
  ['arguments as an array', { server: 'files', tool: 'read', arguments: ['a'] }],
  ['arguments null', { server: 'files', tool: 'read', arguments: null }],
  ['arguments a string', { server: 'files', tool: 'read', arguments: '{"path":"/"}' }],
  ['no tool', { server: 'files' }],
  ['a numeric server', { server: 1, tool: 'read' }],
  ['a boxed string tool', { server: 'files', tool: new String('read') }],
  ['an array carrying the fields', Object.assign(['x'], { server: 'files', tool: 'read' })],
  ['null', null],
  ['a string', 'files/read'],
  ['undefined', undefined],
];

describe('call_mcp_tool arguments of the usual shape', () => {
  it.each(INPUTS)('%s: taken without zod only when the schema accepts them, as the schema parses them', (_name, input) => {
    const usual = usualCallMcpToolInput(input);
    const parsed = schema.safeParse(input);
    if (usual === undefined) return;
    expect(parsed.success).toBe(true);
    expect(usual).toEqual(parsed.data);
  });

  it('takes the plain shapes a model sends without zod', () => {
    expect(usualCallMcpToolInput({ server: 'files', tool: 'read' })).toEqual({ server: 'files', tool: 'read' });
    expect(usualCallMcpToolInput(JSON.parse('{"server":"files","tool":"read","arguments":{"path":"/tmp"}}'))).toEqual({
      server: 'files',
      tool: 'read',
      arguments: { path: '/tmp' },
    });
  });

  it('leaves to the schema what its copy would change: class instances and an own __proto__ key', () => {
    expect(usualCallMcpToolInput({ server: 'files', tool: 'read', arguments: new NotPlain() })).toBeUndefined();
    expect(usualCallMcpToolInput(JSON.parse('{"server":"f","tool":"t","arguments":{"__proto__":{"x":1}}}'))).toBeUndefined();
  });
});
