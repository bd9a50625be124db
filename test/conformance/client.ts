/**
 * The client under test for `@modelcontextprotocol/conformance`, built on the project's
 * `McpConnectionManager` and `login()`:
 *
 *   npx conformance client --command "npx tsx test/conformance/client.ts" --scenario <name>
 *
 * The runner passes the server URL as the last argument, the scenario in
 * MCP_CONFORMANCE_SCENARIO and its credentials in MCP_CONFORMANCE_CONTEXT. Every scenario runs
 * the same way a user's session would: connect (initialize + list), call each tool. When a
 * connect or a call says a login is needed, run `login()` — with a headless "browser" that follows
 * the authorization server's redirect itself — and try again, at most MAX_LOGINS times.
 * Logins go to a temporary folder, removed at exit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, ClientCredentialsProvider, PrivateKeyJwtProvider, type OAuthClientProvider, type Tool } from '@modelcontextprotocol/client';
import { McpConnectionManager, type Logger, type McpServerConfig } from '../../src/index.js';
import { isOAuthLoginRequired, login } from '../../src/entries/oauth.js';

const SERVER = 'conformance';
/** Like a person: a few logins for one session, then give up (auth/scope-retry-limit counts them). */
const MAX_LOGINS = 3;
/** A client ID metadata document URL; the SDK uses it only where the authorization server supports them. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

const serverUrl = process.argv.at(-1) ?? '';
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string | undefined>;

const logger: Logger = {
  debug: (message) => process.stderr.write(`debug: ${message}\n`),
  info: (message) => process.stderr.write(`info: ${message}\n`),
  warn: (message) => process.stderr.write(`warn: ${message}\n`),
  error: (message) => process.stderr.write(`error: ${message}\n`),
};

/** The server's config entry, as a user would write it. */
function serverConfig(): McpServerConfig {
  if (scenario === 'auth/pre-registration') {
    return { url: serverUrl, oauth: { clientId: context.client_id, clientSecret: context.client_secret } };
  }
  return { url: serverUrl, oauth: { clientMetadataUrl: CLIENT_METADATA_URL } };
}

/** Machine-to-machine scenarios: the SDK's client-credentials providers with the context's credentials. */
function clientCredentialsProvider(): OAuthClientProvider | undefined {
  const clientId = context.client_id ?? '';
  if (scenario === 'auth/client-credentials-basic') {
    return new ClientCredentialsProvider({ clientId, clientSecret: context.client_secret ?? '' });
  }
  if (scenario === 'auth/client-credentials-jwt') {
    return new PrivateKeyJwtProvider({ clientId, privateKey: context.private_key_pem ?? '', algorithm: context.signing_algorithm ?? 'ES256' });
  }
  return undefined;
}

/** Accepts every elicitation with no answers, so the SDK fills in the schema's defaults. */
function createClient(): Client {
  const client = new Client(
    { name: 'mcp-statechart-conformance', version: '0.1.0' },
    { capabilities: { elicitation: { form: { applyDefaults: true } } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: {} }));
  return client;
}

/** The headless browser: the test authorization server redirects at once, so follow that to the loopback callback. */
async function followAuthorization(authorizationUrl: URL): Promise<void> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  const callback = await fetch(new URL(location, authorizationUrl));
  await callback.body?.cancel();
}

/** Simple values for a tool's required arguments. */
function argumentsFor(tool: Tool): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  const values: Record<string, unknown> = {};
  for (const name of tool.inputSchema.required ?? []) {
    const type = properties[name]?.type;
    values[name] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : type === 'string' ? 'test' : null;
  }
  return values;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conformance-oauth-'));
  const config = serverConfig();
  const manager = new McpConnectionManager({
    logger,
    clientFactory: createClient,
    oauth: { dir, providerFor: clientCredentialsProvider },
    defaults: { autoReconnect: false },
  });
  let logins = 0;
  const withLogin = async <T>(operation: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await operation();
      } catch (error) {
        if (!isOAuthLoginRequired(error) || logins >= MAX_LOGINS) throw error;
        logins++;
        logger.info(`login ${logins}: ${(error as Error).message}`);
        await login(SERVER, config, { dir, openBrowser: followAuthorization, print: (line) => logger.info(line), timeoutMs: 10_000 });
      }
    }
  };
  try {
    const manifest = await withLogin(() => manager.connect(SERVER, config));
    logger.info(`connected: ${manifest.tools.length} tools`);
    for (const tool of manifest.tools) {
      const result = await withLogin(() => manager.callTool(SERVER, tool.name, argumentsFor(tool)));
      logger.info(`called ${tool.name}: ${result.isError ? 'error' : 'ok'}`);
    }
  } finally {
    await manager.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
