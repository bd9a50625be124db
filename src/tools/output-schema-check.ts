/**
 * A tool's structured content checked against the output schema it listed (the spec: clients
 * SHOULD validate). A result that does not match is still shown, but not handed on as `data`:
 * a caller reading `data` typed by the schema would get what the schema rules out.
 */
import type { CallToolResult, JsonSchemaValidator, Tool, jsonSchemaValidator } from '@modelcontextprotocol/client';
import { terminalLine } from '../../machines/control-characters.js';

type OutputSchema = NonNullable<Tool['outputSchema']>;

/** The validator's message names the server's properties: cut, it still says what is wrong. */
const MAX_MESSAGE = 300;

/** Loaded on the first tool with an output schema: ajv costs some 20 ms to import, which a CLI start need not pay. */
let validator: Promise<jsonSchemaValidator> | undefined;
const loadValidator = (): Promise<jsonSchemaValidator> =>
  (validator ??= import('@modelcontextprotocol/client/validators/ajv').then(({ AjvJsonSchemaValidator }) => new AjvJsonSchemaValidator()));
/** Compiled once per listed schema; a relisting brings new objects and the old entries go with the old manifest. */
const compiled = new WeakMap<object, JsonSchemaValidator<unknown> | null>();

async function checkerFor(schema: OutputSchema): Promise<JsonSchemaValidator<unknown> | null> {
  let check = compiled.get(schema);
  if (check === undefined) {
    // Node keeps a failed import failed (EMFILE while every file descriptor was taken): the call's
    // result is then given unchecked, rather than lost on this and every later call.
    const loaded = await loadValidator().catch(() => undefined);
    if (loaded === undefined) return null;
    try {
      check = loaded.getValidator<unknown>(schema);
    } catch {
      // A schema the validator cannot compile checks nothing: the server's result is shown as it was.
      check = null;
    }
    compiled.set(schema, check);
  }
  return check;
}

/** The output schema the result is checked against: none for a tool that lists none, or for a failed call. */
export function outputSchemaToCheck(tool: Tool | undefined, result: CallToolResult): OutputSchema | undefined {
  return result.isError === true ? undefined : tool?.outputSchema;
}

/** Why the result does not match `schema` (from outputSchemaToCheck), or undefined when it does. */
export async function outputSchemaMismatch(schema: OutputSchema, result: CallToolResult): Promise<string | undefined> {
  if (result.structuredContent === undefined) return 'the tool has an output schema but the server sent no structured content';
  const check = await checkerFor(schema);
  if (check === null) return undefined;
  const outcome = check(result.structuredContent);
  return outcome.valid ? undefined : terminalLine(outcome.errorMessage).slice(0, MAX_MESSAGE);
}
