import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loginFileName, OAuthTokenStore } from '../src/auth/token-store.js';
import { readOAuthEntry } from '../src/auth/oauth-config.js';
import type { McpServerEntry } from '../machines/types.js';
import { loginDir } from './fixtures/oauth-helpers.js';

describe('the login file', () => {
  it('is named after the server, and no name leaves the folder or shares a file', () => {
    const names = ['remote', '../etc/passwd', 'a/b', '..', '.', 'a%2Fb', 'Ünïcode', '__proto__'];
    const files = names.map(loginFileName);
    expect(files[0]).toBe('remote.json');
    for (const file of files) expect(file).not.toMatch(/[/\\]/);
    expect(files).not.toContain('..json');
    expect(new Set(files).size).toBe(names.length);
  });

  it('names no file Windows opens as a device (nul, con, com1, with any extension)', () => {
    const names = ['nul', 'con', 'prn', 'aux', 'com1', 'lpt9', 'nul.backup', 'Con', '%6Eul', 'null', 'console', 'com10'];
    const files = names.map(loginFileName);
    for (const file of files) expect(file).not.toMatch(/^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/i);
    expect(files[0]).toBe('%6Eul.json');
    expect(files.slice(-3)).toEqual(['null.json', 'console.json', 'com10.json']);
    expect(new Set(files).size).toBe(names.length);

    const dir = loginDir();
    new OAuthTokenStore('nul', dir).write({ serverUrl: 'http://127.0.0.1/nul' });
    expect(new OAuthTokenStore('nul', dir).read().serverUrl).toBe('http://127.0.0.1/nul');
  });

  it('keeps Docs and docs apart on a case-insensitive file system, and fits a 1,000-character name in a file name', () => {
    const files = ['docs', 'Docs', 'DOCS', 'n'.repeat(1000), `${'n'.repeat(1000)}x`].map(loginFileName);
    expect(files[0]).toBe('docs.json');
    expect(new Set(files.map((file) => file.toLowerCase())).size).toBe(files.length);
    for (const file of files) expect(Buffer.byteLength(file)).toBeLessThanOrEqual(255);

    const dir = loginDir();
    for (const name of ['Docs', 'docs', 'n'.repeat(1000)]) new OAuthTokenStore(name, dir).write({ serverUrl: `http://127.0.0.1/${name.length}` });
    expect(new OAuthTokenStore('Docs', dir).read().serverUrl).toBe('http://127.0.0.1/4');
    expect(new OAuthTokenStore('n'.repeat(1000), dir).read().serverUrl).toBe('http://127.0.0.1/1000');
  });

  it('closes a folder that already existed open to others (0700)', () => {
    const dir = loginDir();
    mkdirSync(dir, { recursive: true, mode: 0o777 });
    chmodSync(dir, 0o777);
    new OAuthTokenStore('remote', dir).write({ serverUrl: 'http://127.0.0.1/mcp' });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('closes a login file found open to others (0600) when it reads it, and reads it as it is', () => {
    const dir = loginDir();
    const store = new OAuthTokenStore('remote', dir);
    store.write({ serverUrl: 'http://127.0.0.1/mcp', tokens: { access_token: 'copied', token_type: 'Bearer' } });
    // Copied from another machine, or restored from a backup.
    chmodSync(store.file, 0o644);
    expect(store.read().tokens?.access_token).toBe('copied');
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
  });

  it('closes a login file found open to others (0600) when it reads it even if it is no login: cut short, not JSON, or too large', () => {
    const dir = loginDir();
    const store = new OAuthTokenStore('remote', dir);
    store.createFolder();
    // A write cut short, a hand edit gone wrong: the tokens are in it all the same.
    const broken = ['{"tokens": {"access_token": "copied", "token_type": "Bearer"', 'access_token=copied', `{"padding": "${'x'.repeat(1024 * 1024)}"}`];
    for (const text of broken) {
      writeFileSync(store.file, text);
      chmodSync(store.file, 0o644);
      expect(store.read()).toEqual({});
      expect(statSync(store.file).mode & 0o777).toBe(0o600);
    }
  });

  it('never changes the mode of what a link at the login file names: it may be any file, no login', () => {
    const dir = loginDir();
    const store = new OAuthTokenStore('remote', dir);
    store.createFolder();
    const elsewhere = path.join(mkdtempSync(path.join(tmpdir(), 'not-a-login-')), 'notes.txt');
    writeFileSync(elsewhere, 'shared notes, not a login');
    chmodSync(elsewhere, 0o644);
    symlinkSync(elsewhere, store.file);
    expect(store.read()).toEqual({});
    expect(statSync(elsewhere).mode & 0o777).toBe(0o644);
  });

  it('is written 0600 in a 0700 folder, replaced whole, and deleted', () => {
    const dir = loginDir();
    const store = new OAuthTokenStore('remote', dir);
    store.write({ serverUrl: 'http://127.0.0.1/mcp', tokens: { access_token: 'a', token_type: 'Bearer' } });
    store.write({ serverUrl: 'http://127.0.0.1/mcp', tokens: { access_token: 'b', token_type: 'Bearer' } });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(store.read().tokens?.access_token).toBe('b');
    expect(readdirSync(dir)).toEqual(['remote.json']);
    expect(store.delete()).toBe(true);
    expect(store.read()).toEqual({});
  });

  it('reads a file from before issuers were kept apart as the credentials of the issuer it discovered', () => {
    const dir = loginDir();
    mkdirSync(dir, { recursive: true });
    const store = new OAuthTokenStore('remote', dir);
    const discoveryState = { authorizationServerUrl: 'http://127.0.0.1/as', authorizationServerMetadata: { issuer: 'http://127.0.0.1/as' } };
    writeFileSync(store.file, JSON.stringify({ serverUrl: 'http://x/mcp', tokens: { access_token: 'a', token_type: 'Bearer' }, discoveryState }));
    expect(store.read()).toMatchObject({ issuer: 'http://127.0.0.1/as', tokens: { access_token: 'a' } });
  });

  it('reads a broken or foreign file as no login', () => {
    const dir = loginDir();
    mkdirSync(dir, { recursive: true });
    const store = new OAuthTokenStore('remote', dir);
    writeFileSync(store.file, '{ not json');
    expect(store.read()).toEqual({});
    writeFileSync(store.file, JSON.stringify({ serverUrl: 'http://x/mcp', tokens: { nope: true }, requiredScope: 7 }));
    expect(store.read()).toEqual({ serverUrl: 'http://x/mcp' });
  });
});

describe('the "oauth" field of an entry', () => {
  it('accepts a client, scopes as an array or a string, and false', () => {
    expect(readOAuthEntry('s', { url: 'http://x' })).toEqual({ scope: undefined });
    expect(readOAuthEntry('s', { url: 'http://x', oauth: false })).toBe(false);
    expect(readOAuthEntry('s', { url: 'http://x', oauth: { clientId: 'id', scopes: ['a', 'b', 'a'] } })).toEqual({ clientId: 'id', scope: 'a b' });
    expect(readOAuthEntry('s', { url: 'http://x', oauth: { scopes: 'a  b' } })).toEqual({ scope: 'a b' });
    expect(readOAuthEntry('s', { url: 'http://x', oauth: { clientId: 'id', issuer: 'https://auth.example.com' } })).toEqual({
      clientId: 'id',
      issuer: 'https://auth.example.com',
      scope: undefined,
    });
  });

  it.each([
    [{ clientSecret: 'secret-value' }, 'oauth.clientId'],
    [{ clientId: 5 }, 'oauth.clientId'],
    [{ scope: 'a' }, 'oauth'],
    [{ clientMetadataUrl: 'http://not-https.example/client.json' }, 'oauth.clientMetadataUrl'],
    ['yes', 'oauth'],
    [{ issuer: 'auth.example.com' }, 'oauth.issuer'],
    [{ issuer: 'ftp://auth.example.com' }, 'oauth.issuer'],
  ])('rejects %j naming %s, never quoting a value', (oauth, field) => {
    expect(() => readOAuthEntry('s', { url: 'http://x', oauth } as McpServerEntry)).toThrow(expect.objectContaining({ field }));
    try {
      readOAuthEntry('s', { url: 'http://x', oauth } as McpServerEntry);
    } catch (error) {
      expect((error as Error).message).not.toContain('secret-value');
    }
  });
});
