/**
 * Protected-resource metadata (RFC 9728) that is there but broken is not the same as none: the
 * SDK quietly takes the server's origin as the authorization server then. The login says so,
 * naming the metadata's URL and what is wrong, and says it again in its error when it fails.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { login } from '../src/entries/oauth.js';
import { loginDir, oauthFixture } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';
import { runInProcess } from './support/in-process-cli.js';
import type { OAuthFixtureOptions } from './fixtures/oauth-server.js';

const PRM_PATH = '/.well-known/oauth-protected-resource/mcp';

async function loginPrinting(options: OAuthFixtureOptions) {
  const fixture = await oauthFixture(options);
  const printed: string[] = [];
  const attempt = login('remote', { url: fixture.url }, { dir: loginDir(), openBrowser: fixture.browse, print: (line) => printed.push(line) });
  return { fixture, printed, attempt, metadataUrl: `${new URL(fixture.url).origin}${PRM_PATH}` };
}

describe('protected-resource metadata that is there but broken', () => {
  it.each([
    ['not JSON', { status: 200, body: '<html>welcome</html>' }, 'is not JSON, where OAuth requires a JSON object naming the resource and its authorization servers'],
    ['without authorization servers', { status: 200, body: '{"resource":"BASE/mcp"}' }, 'names no authorization server (authorization_servers is missing)'],
    ['with an empty list of them', { status: 200, body: '{"resource":"BASE/mcp","authorization_servers":[]}' }, 'names no authorization server (authorization_servers is empty)'],
    ['an error status', { status: 500, body: '{}' }, 'answered HTTP 500'],
    ['without a resource', { status: 200, body: '{"authorization_servers":["BASE"]}' }, 'lacks what OAuth requires of it: resource is missing'],
  ])('%s: the login that falls back to the origin warns, naming the URL and the fault', async (_, answer, fault) => {
    const { fixture, printed, attempt, metadataUrl } = await loginPrinting({ resourceMetadata: (base) => ({ status: answer.status, body: answer.body.replaceAll('BASE', base) }) });
    await attempt;
    const origin = new URL(fixture.url).origin;
    expect(printed[0]).toBe(
      `Warning: the protected-resource metadata of MCP server "remote" (${metadataUrl}) ${fault}: so a login ignores it and uses the server's origin (${origin}) as its authorization server, which may not be one; tell whoever runs the server`,
    );
    expect(printed.join('\n')).not.toContain('welcome');
  });

  it('a login that then fails says why in its error too', async () => {
    const { attempt, metadataUrl } = await loginPrinting({ dynamicRegistration: false, resourceMetadata: () => ({ status: 200, body: 'not json' }) });
    const error = await rejectionOf(attempt);
    expect(error.message).toContain(`(the protected-resource metadata of MCP server "remote" (${metadataUrl}) is not JSON`);
  });

  it('metadata for another resource: the warning says a login refuses it, and the error repeats it', async () => {
    const { printed, attempt, metadataUrl } = await loginPrinting({
      resourceMetadata: (base) => ({ status: 200, body: JSON.stringify({ resource: 'https://elsewhere.example/mcp', authorization_servers: [base] }) }),
    });
    const error = await rejectionOf(attempt);
    const warning = `the protected-resource metadata of MCP server "remote" (${metadataUrl}) names another resource than this server ("https://elsewhere.example/mcp", not ${new URL(metadataUrl).origin}/mcp): so a login refuses it`;
    expect(printed[0]).toContain(`Warning: ${warning}`);
    expect(error.message).toContain(warning);
  });

  it("metadata missing (404) at the URL the server's challenge names: a warning that it is not there", async () => {
    const { printed, attempt, metadataUrl } = await loginPrinting({ resourceMetadata: () => ({ status: 404, body: '{}' }) });
    await attempt;
    expect(printed[0]).toContain(`Warning: the protected-resource metadata of MCP server "remote" (${metadataUrl}) is not there (HTTP 404), though the server's 401 names it: so a login ignores it`);
  });

  it.each([
    ['valid metadata', {}],
    ['valid metadata the challenge does not name, found at the well-known address', { namesResourceMetadata: false }],
    ['no metadata at all: none named, none at the well-known addresses (404)', { namesResourceMetadata: false, resourceMetadata: () => ({ status: 404, body: '{}' }) }],
  ])('%s: no warning', async (_, options: OAuthFixtureOptions) => {
    const { printed, attempt } = await loginPrinting(options);
    await attempt;
    expect(printed.join('\n')).not.toContain('Warning');
  });
});

describe('doctor, for a server that wants a login', () => {
  async function doctorOf(options: OAuthFixtureOptions, ...flags: string[]) {
    const fixture = await oauthFixture(options);
    const config = join(mkdtempSync(join(tmpdir(), 'mcp-prm-doctor-')), 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { remote: { url: fixture.url } } }));
    return { run: await runInProcess(['--config', config, 'doctor', ...flags]), metadataUrl: `${new URL(fixture.url).origin}${PRM_PATH}` };
  }

  it('warns of broken metadata under the hint to log in, in the table and in --json', async () => {
    const broken = { resourceMetadata: () => ({ status: 200, body: '{"resource":"x"' }) };
    const { run, metadataUrl } = await doctorOf(broken);
    expect(run.stdout).toContain('  hint: run `mcp-statechart login remote`\n');
    expect(run.stdout).toContain(`  warning: the protected-resource metadata of MCP server "remote" (${metadataUrl}) is not JSON`);
    const json = await doctorOf(broken, '--json');
    const report = JSON.parse(json.run.stdout) as { servers: Array<{ error: { warning?: string } }> };
    expect(report.servers[0]?.error.warning).toContain(`(${json.metadataUrl}) is not JSON`);
  });

  it('says nothing of valid metadata', async () => {
    const { run } = await doctorOf({});
    expect(run.stdout).toContain('  hint: run `mcp-statechart login remote`');
    expect(run.stdout).not.toContain('warning');
  });
});
