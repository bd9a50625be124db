import { describe, expect, it } from 'vitest';
import { login } from '../src/entries/oauth.js';
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
