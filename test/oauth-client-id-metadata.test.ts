// Client ID metadata documents: where the authorization server advertises
// `client_id_metadata_document_supported`, the client's ID is the https URL of a document
// describing it, and nothing is registered. Elsewhere dynamic registration stays, as a native app.
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { login, OAuthTokenStore } from '../src/entries/oauth.js';
import { afterThisTest, loginDir, oauthFixture } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

const DOCUMENT_URL = 'https://client.example/mcp-statechart.json';
const documents = { [DOCUMENT_URL]: { redirect_uris: ['http://127.0.0.1/callback'] } };

describe('the client ID metadata document', () => {
  it("is the client ID where the server supports it: from the entry's oauth.clientMetadataUrl, nothing registered, the refresh uses it too", async () => {
    const fixture = await oauthFixture({ clientMetadataDocuments: documents });
    const dir = loginDir();
    const config = { url: fixture.url, oauth: { clientMetadataUrl: DOCUMENT_URL } };
    await login('remote', config, { dir, openBrowser: fixture.browse, print: () => {} });
    expect(fixture.registrations).toHaveLength(0);
    expect(fixture.authorizations.map((request) => request.clientId)).toEqual([DOCUMENT_URL]);
    expect(new OAuthTokenStore('remote', dir).read().clientInformation?.client_id).toBe(DOCUMENT_URL);

    const manager = new McpConnectionManager({ logger: silentLogger, oauth: { dir } });
    afterThisTest(() => manager.dispose());
    fixture.expireAccessTokens();
    await manager.connect('remote', config);
    expect(fixture.tokenRequests).toEqual([
      { grantType: 'authorization_code', clientAuth: 'none' },
      { grantType: 'refresh_token', clientAuth: 'none' },
    ]);
  });

  it("comes from login's clientMetadataUrl option for an entry that names none", async () => {
    const fixture = await oauthFixture({ clientMetadataDocuments: documents });
    await login('remote', { url: fixture.url }, { dir: loginDir(), clientMetadataUrl: DOCUMENT_URL, openBrowser: fixture.browse, print: () => {} });
    expect(fixture.registrations).toHaveLength(0);
    expect(fixture.authorizations.map((request) => request.clientId)).toEqual([DOCUMENT_URL]);
  });

  it('is not used where the server does not support it: dynamic registration as a native application', async () => {
    const fixture = await oauthFixture();
    await login('remote', { url: fixture.url }, { dir: loginDir(), clientMetadataUrl: DOCUMENT_URL, openBrowser: fixture.browse, print: () => {} });
    expect(fixture.registrations).toEqual([expect.objectContaining({ applicationType: 'native', redirectUris: [expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)] })]);
    expect(fixture.authorizations[0]?.clientId).not.toBe(DOCUMENT_URL);
  });

  it('must be an https URL with a path: another is refused before anything is sent', async () => {
    const fixture = await oauthFixture({ clientMetadataDocuments: documents });
    const error = await rejectionOf(login('remote', { url: fixture.url }, { dir: loginDir(), clientMetadataUrl: 'http://client.example/doc.json', openBrowser: fixture.browse, print: () => {} }));
    expect(error.message).toContain('clientMetadataUrl');
    expect(fixture.mcpRequests).toHaveLength(0);
    expect(fixture.authorizations).toHaveLength(0);
  });
});
