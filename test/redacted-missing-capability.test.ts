/**
 * A server's -32021 (MissingRequiredClientCapability) refusal whose message held a secret of the
 * server's entry is redacted, and still read as a missing capability: call_mcp_tool keeps its note
 * that calling again will not help, and the manager's error keeps the handler advice. Before, the
 * redacted copy was a plain Error, which the instanceof check no longer recognised. The real
 * 2026-07-28 fixture server over stdio; its env holds a value its refusal's wording contains.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, McpServerError, silentLogger } from '../src/index.js';
import { explainFailure } from '../src/cli/failure-text.js';
import { missingCapabilities } from '../src/connection/missing-handler.js';
import { rejectionOf } from './support/fixtures.js';
import { MODERN_SERVER } from './support/modern-server.js';

// Words of the server's refusal ("Cannot request input 'name' (elicitation/create): …"), as a secret may be by chance.
const SECRET = 'elicitation/create';
const entry = () => ({ command: process.execPath, args: [MODERN_SERVER], env: { ACCOUNT_KEY: SECRET } });

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

describe('a missing-capability refusal whose message held a secret', () => {
  it('is redacted, and its cause is still recognised by code and data', async () => {
    manager = new McpConnectionManager({ logger: silentLogger });
    await manager.connect('modern', entry());
    const error = await rejectionOf(manager.callTool('modern', 'ask-name', {}));
    expect(error).toBeInstanceOf(McpServerError);
    expect(error.message).not.toContain(SECRET);
    expect(error.message).toContain('[redacted]');
    expect(missingCapabilities(error.cause)).toEqual({ elicitation: { form: {} } });
    expect(error.message).toContain('give handlers.elicitation in the options of McpConnectionManager');
    expect(explainFailure('modern', error).hint).toMatch(/^the command line answers no forms, sampling or roots requests/);
  });

  it('call_mcp_tool keeps the note that calling again will not help', async () => {
    manager = new McpConnectionManager({ logger: silentLogger });
    const [load, call] = createLoaderTools({ manager, servers: { modern: entry() }, manifestIndex: false });
    expect((await load!.execute({ server: 'modern' })).isError).toBe(false);
    const result = await call!.execute({ server: 'modern', tool: 'ask-name', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.text).not.toContain(SECRET);
    expect(result.text).toMatch(/\nThe tool needs input \(a form, a sampling or the roots\) that this application does not answer, so calling it again will not help: tell the user it cannot be used here\.$/);
  });
});
