/**
 * call_mcp_tool checks a result's structured content against the output schema the tool listed:
 * a result that does not match is shown with a note and not handed on as `data`, so a caller
 * reading `data` by the schema never gets what the schema rules out. A real stdio server
 * (test/fixtures/output-schema-server.mjs) that sends each kind of answer.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderTool, type LoaderToolResult } from '../src/index.js';

const OUTPUT_SCHEMA_SERVER = fileURLToPath(new URL('./fixtures/output-schema-server.mjs', import.meta.url));

let manager: McpConnectionManager;
let call: LoaderTool;

beforeAll(async () => {
  manager = new McpConnectionManager({ logger: silentLogger });
  const tools = createLoaderTools({ manager, servers: { measuring: { command: process.execPath, args: [OUTPUT_SCHEMA_SERVER] } }, manifestIndex: false });
  expect((await tools[0]!.execute({ server: 'measuring' })).isError).toBe(false);
  call = tools.find((tool) => tool.name === 'call_mcp_tool')!;
}, 30_000);
afterAll(() => manager.dispose());

const measure = (answer: string): Promise<LoaderToolResult> => call.execute({ server: 'measuring', tool: 'measure', arguments: { answer } });

describe("a tool's output schema", () => {
  it('a matching result: its structured content is the data, and no note', async () => {
    const result = await measure('valid');
    expect(result).toMatchObject({ isError: false, data: { n: 3 } });
    expect(result.text).not.toContain('output schema');
  });

  it('structured content that breaks the schema: shown, with a note saying what is wrong, and not given as data', async () => {
    const result = await measure('invalid');
    expect(result.isError).toBe(false);
    expect(result).not.toHaveProperty('data');
    expect(result.text).toMatch(/^n is three\nStructured content: \{"n":"three"\}\n\[The result does not match the tool's output schema \(.*\bn\b.*number.*\): its structured content is not given as data\.\]$/);
  });

  it('no structured content from a tool with an output schema: a note says the server sent none', async () => {
    const result = await measure('missing');
    expect(result).toEqual({
      isError: false,
      text: "n is not given\n[The result does not match the tool's output schema (the tool has an output schema but the server sent no structured content): its structured content is not given as data.]",
      content: [
        { type: 'text', text: 'n is not given' },
        { type: 'text', text: "[The result does not match the tool's output schema (the tool has an output schema but the server sent no structured content): its structured content is not given as data.]" },
      ],
    });
  });

  it('an error result is not checked: it stays an error, with no note', async () => {
    const result = await measure('error');
    expect(result).toEqual({ isError: true, text: 'could not measure', content: [{ type: 'text', text: 'could not measure' }] });
  });
});
