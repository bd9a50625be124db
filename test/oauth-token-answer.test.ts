import { describe, expect, it } from 'vitest';
import { login } from '../src/entries/oauth.js';
import { checkingOAuthAnswers } from '../src/auth/oauth-answers.js';
import { MAX_MESSAGE_BYTES } from '../src/transports/message-size.js';
import { bodyMadeAsRead } from './support/endless-body.js';
import { loginDir, oauthFixture } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

async function loginAnswered(body: string): Promise<Error> {
  const fixture = await oauthFixture({ tokenAnswer: () => ({ status: 200, body }) });
  return rejectionOf(login('remote', { url: fixture.url }, { dir: loginDir(), openBrowser: fixture.browse, print: () => {} }));
}

describe('a token endpoint that answers something other than a JSON object of tokens', () => {
  it.each([
    ['a deeply nested array', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, 'is not a JSON object (it is an array)'],
    ['a string', '"tokens"', 'is not a JSON object (it is a string)'],
    ['null', 'null', 'is not a JSON object (it is null)'],
    ['an HTML page', '<html>welcome</html>', 'is not JSON'],
  ])('%s: the login says so in words, and what to do', async (_, body, fault) => {
    const error = await loginAnswered(body);
    expect(error.message).toContain(`the token endpoint's answer (`);
    expect(error.message).toContain(`/token) ${fault}, where OAuth requires a JSON object of tokens`);
    expect(error.message).toContain('tell whoever runs it');
    expect(error.message).not.toMatch(/invalid_type|"expected"|welcome/);
  });
});

describe('a token endpoint that answers a JSON object without the tokens OAuth requires', () => {
  it.each([
    ['an empty object', '{}', 'access_token is missing; token_type is missing'],
    ['an access token that is not a string', '{"access_token":5,"token_type":"Bearer"}', 'access_token is a number, not a string'],
    ['no token type', '{"access_token":"secret-token-value"}', 'token_type is missing'],
    ['a lifetime that is not a number', '{"access_token":"secret-token-value","token_type":"Bearer","expires_in":"soon"}', 'expires_in is a string, not a number'],
  ])('%s: the login names the field and what is wrong with it, not its value', async (_, body, fault) => {
    const error = await loginAnswered(body);
    expect(error.message).toContain(`/token) lacks what OAuth requires of it: ${fault}: the authorization server is misconfigured`);
    expect(error.message).toContain('tell whoever runs it');
    expect(error.message).not.toMatch(/invalid_type|"expected"|secret-token-value|soon/);
  });
});

describe('a token endpoint whose answer does not end', () => {
  it('is read no further than the limit of any message, and refused as too large', async () => {
    // 256 MiB of white space, made as it is read.
    const endless = bodyMadeAsRead(1024 * 1024, 256 * 1024 * 1024, 0x20);
    const hostile = async () => new Response(endless.body, { status: 200, headers: { 'content-type': 'application/json' } });
    const refresh = { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r' }) };

    const error = await rejectionOf(checkingOAuthAnswers(hostile)('http://127.0.0.1:1/token', refresh));

    expect(error.name).toBe('MessageTooLargeError');
    expect(error.message).toContain('the token endpoint sent a message over 10 MiB');
    // A stream pulls one chunk ahead of its reader.
    expect(endless.pulled()).toBeLessThanOrEqual(MAX_MESSAGE_BYTES + 2 * endless.chunkBytes);
  });
});

