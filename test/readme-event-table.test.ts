/**
 * README's table of the registry protocol (the events in, their replies, the reports) names each
 * event with its fields, `mcp.toolResult { requestId, server, result }`: every field of the event's
 * type in machines/types.ts, optional ones marked `?`, and nothing more. The request options every
 * request may carry (McpRequestFields) are told once, in the sentence under the table.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(`${ROOT}README.md`, 'utf8');
const TYPES = ts.createSourceFile('types.ts', readFileSync(`${ROOT}machines/types.ts`, 'utf8'), ts.ScriptTarget.Latest, true);
const TOLD_UNDER_THE_TABLE = 'McpRequestFields';

const interfaces = new Map<string, ts.InterfaceDeclaration>();
ts.forEachChild(TYPES, (node) => {
  if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node);
});

/** The fields of an interface and of those it extends, `name` or `name?`. */
function fieldsOf(declaration: ts.InterfaceDeclaration): string[] {
  const inherited = (declaration.heritageClauses ?? []).flatMap((clause) =>
    clause.types.map((type) => type.expression.getText(TYPES)).filter((name) => name !== TOLD_UNDER_THE_TABLE),
  );
  const own = declaration.members.filter(ts.isPropertySignature).map((member) => `${member.name.getText(TYPES)}${member.questionToken ? '?' : ''}`);
  return [...own, ...inherited.flatMap((name) => fieldsOf(interfaces.get(name)!))];
}

/** Each event type of the protocol (`mcp.load`, …), with its fields other than `type`. */
function eventTypes(): Map<string, string[]> {
  const events = new Map<string, string[]>();
  for (const declaration of interfaces.values()) {
    const type = declaration.members.find((member) => ts.isPropertySignature(member) && member.name.getText(TYPES) === 'type');
    const literal = type && ts.isPropertySignature(type) && type.type && ts.isLiteralTypeNode(type.type) ? type.type.literal : undefined;
    if (literal && ts.isStringLiteral(literal)) events.set(literal.text, fieldsOf(declaration).filter((field) => field !== 'type'));
  }
  return events;
}

/** The README's passage on the protocol: the table and the sentences on requests and reports under it. */
function protocolPassage(): string {
  const start = README.indexOf('| in (to the registry) | reply (to `replyTo`) |');
  const end = README.indexOf('to `actor.on(...)` listeners.', start);
  expect(start).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  return README.slice(start, end);
}

/** Every `mcp.x { a, b? }` the passage writes, with its fields as written. */
function writtenEvents(passage: string): Array<{ type: string; fields: string[] }> {
  return [...passage.replace(/`\s*\n\s*/g, '` ').replace(/\s*\n\s*/g, ' ').matchAll(/`(mcp\.\w+) \{([^}]*)\}`/g)].map(([, type, fields]) => ({
    type: type!,
    fields: fields!.split(',').map((field) => field.trim()).filter((field) => field !== ''),
  }));
}

describe("README's table of the registry protocol", () => {
  const events = eventTypes();
  const written = writtenEvents(protocolPassage());

  it('names the events of machines/types.ts, each with its fields as a block', () => {
    expect(written.length).toBeGreaterThan(15);
    for (const { type } of written) expect(events.has(type), type).toBe(true);
  });

  it('writes each event with every field of its type, optional ones marked ?, and no other', () => {
    const wrong = written
      .filter(({ type, fields }) => [...fields].sort().join(', ') !== [...events.get(type)!].sort().join(', '))
      .map(({ type, fields }) => `${type} { ${fields.join(', ')} } — the type has { ${events.get(type)!.join(', ')} }`);
    expect(wrong).toEqual([]);
  });
});
