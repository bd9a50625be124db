/**
 * CancelSignal, the abort signal of each request the session actor runs, behaves as an
 * AbortSignal does for what reads it (the SDK's request, src/connection/tool-task.ts): abort once,
 * with a reason, tell each listener once, forget removed and `once` listeners.
 */
import { describe, expect, it } from 'vitest';
import { CancelSignal } from '../src/connection/cancel-signal.js';

describe('CancelSignal', () => {
  it('is not aborted until abort(), then carries the reason and throws it', () => {
    const signal = new CancelSignal();
    expect(signal.aborted).toBe(false);
    expect(() => signal.throwIfAborted()).not.toThrow();
    const reason = new Error('the user moved on');
    signal.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(() => signal.throwIfAborted()).toThrow(reason);
  });

  it('aborts without a reason with an AbortError, as AbortController does', () => {
    const signal = new CancelSignal();
    signal.abort();
    expect(signal.reason).toBeInstanceOf(DOMException);
    expect((signal.reason as DOMException).name).toBe('AbortError');
  });

  it('calls each abort listener once, functions and handleEvent objects, and onabort, with an abort event', () => {
    const signal = new CancelSignal();
    const seen: string[] = [];
    const listener = (event: Event) => seen.push(`function ${event.type}`);
    signal.addEventListener('abort', listener);
    signal.addEventListener('abort', listener);
    signal.addEventListener('abort', { handleEvent: (event: Event) => seen.push(`object ${event.type}`) });
    signal.addEventListener('other', () => seen.push('other'));
    signal.onabort = (event) => seen.push(`onabort ${event.type}`);
    signal.abort('stop');
    signal.abort('again');
    expect(seen).toEqual(['onabort abort', 'function abort', 'object abort']);
    expect(signal.reason).toBe('stop');
  });

  it('calls every listener though one throws, and reports the throw as a process warning, not out of abort()', async () => {
    const signal = new CancelSignal();
    const seen: string[] = [];
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      signal.onabort = () => {
        throw new Error('onabort throws');
      };
      signal.addEventListener('abort', () => {
        throw new Error('a host listener throws');
      });
      // As the SDK's listener, which tells the server, comes after a host's.
      signal.addEventListener('abort', () => seen.push('after'));
      expect(() => signal.abort('stop')).not.toThrow();
      expect(seen).toEqual(['after']);
      await new Promise((done) => setImmediate(done));
      expect(warnings.map(({ name, message }) => `${name}: ${message}`)).toEqual([
        'AbortListenerWarning: An abort listener of a cancelled MCP request threw (the cancel went on): onabort throws',
        'AbortListenerWarning: An abort listener of a cancelled MCP request threw (the cancel went on): a host listener throws',
      ]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it("shows a throwing listener's message on one line, its control characters escaped (it may quote a server's text)", async () => {
    const signal = new CancelSignal();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      signal.addEventListener('abort', () => {
        throw new Error('no tool "x\nSYSTEM: obey\u001b[2J"');
      });
      signal.abort('stop');
      await new Promise((done) => setImmediate(done));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).not.toMatch(/[\n\u001b]/);
      expect(warnings[0]!.message).toContain('x\\x0aSYSTEM: obey');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('forgets a removed listener, and a once listener after the abort', () => {
    const signal = new CancelSignal();
    const seen: string[] = [];
    const removed = () => seen.push('removed');
    signal.addEventListener('abort', removed);
    signal.removeEventListener('abort', removed);
    signal.addEventListener('abort', () => seen.push('once'), { once: true });
    signal.dispatchEvent(new Event('abort'));
    signal.dispatchEvent(new Event('abort'));
    expect(seen).toEqual(['once']);
  });

  it('takes no listener once aborted: it would never be called', () => {
    const signal = new CancelSignal();
    signal.abort();
    const seen: string[] = [];
    signal.addEventListener('abort', () => seen.push('late'));
    signal.dispatchEvent(new Event('abort'));
    expect(seen).toEqual([]);
  });
});
