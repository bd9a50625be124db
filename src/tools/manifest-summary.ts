/**
 * The manifest as load_mcp returns it: what the model needs to use a server well (tool
 * annotations, whether a tool returns structured content, the server's instructions) and
 * nothing else (no `$schema` dialect keys), within the result budget. A manifest over the
 * budget gives way to names and one-line descriptions, as many as fit, and the model asks for
 * one tool's full entry when it needs it.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { McpServerManifest, PublicServerState } from '../../machines/types.js';
import { jsonWithoutControls } from '../../machines/control-characters.js';
import { sliceWithinBudget } from '../text-limits.js';

/** The server's `instructions` from `initialize` get at most this many characters. */
export const INSTRUCTIONS_BUDGET = 2_000;
/** A one-line description in the short form is cut here. */
const ONE_LINE = 160;

const ANNOTATION_KEYS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

export interface ToolSummary {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: Partial<Record<(typeof ANNOTATION_KEYS)[number], unknown>>;
  /** Present when the tool declares an output schema: its results carry structured content. */
  hasOutputSchema?: true;
}

export interface ManifestSummary {
  server: string;
  state: PublicServerState;
  /** The protocol revision negotiated with the server. */
  protocolVersion?: string;
  instructions?: string;
  /** `short` when the full manifest was over the budget: tools without input schemas, lists cut to what fits. */
  form?: 'short';
  note?: string;
  tools: ToolSummary[];
  resources: Array<{ uri: string; name: string; description?: string; mimeType?: string }>;
  resourceTemplates: Array<{ uriTemplate: string; name: string; description?: string; mimeType?: string }>;
  prompts: Array<{ name: string; description?: string; arguments?: unknown }>;
  /** Entries left out of each list in the short form. */
  omitted?: { tools: number; resources: number; resourceTemplates: number; prompts: number };
}

/** The annotations a model can act on, and only those: a server may put anything in the object. */
function annotationsOf(tool: Tool): ToolSummary['annotations'] {
  const given = tool.annotations as Record<string, unknown> | undefined;
  if (!given) return undefined;
  const kept: NonNullable<ToolSummary['annotations']> = {};
  for (const key of ANNOTATION_KEYS) if (given[key] !== undefined) kept[key] = given[key];
  return Object.keys(kept).length > 0 ? kept : undefined;
}

function oneLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const [first = ''] = text.trim().split('\n', 1);
  return first.length > ONE_LINE ? `${sliceWithinBudget(first, ONE_LINE - 1)}…` : first;
}

export function toolSummary(tool: Tool, full: boolean): ToolSummary {
  const summary: ToolSummary = { name: tool.name };
  if (tool.title !== undefined) summary.title = tool.title;
  const description = full ? tool.description : oneLine(tool.description);
  if (description !== undefined) summary.description = description;
  if (full) summary.inputSchema = tool.inputSchema;
  const annotations = annotationsOf(tool);
  if (annotations) summary.annotations = annotations;
  if (tool.outputSchema !== undefined) summary.hasOutputSchema = true;
  return summary;
}

/** Room kept, in a shortened description, for the note saying so. */
const DESCRIPTION_CUT_MARGIN = 200;

/**
 * `description`, shortened with a note saying so when `render` (the answer written with it) is over
 * `budget`: cut at the budget as any text is, an answer would lose what follows the description
 * (a tool's input schema, the other tools found). Escaped control characters take up to eight
 * characters each, so the room is shared out in proportion to the description's written length,
 * measured through `render` itself: a JSON answer and a bare text escape them differently.
 */
export function descriptionWithin(description: string, render: (description: string) => string, budget: number): string {
  const whole = render(description).length;
  if (whole <= budget) return description;
  const cut = (length: number) => {
    const kept = sliceWithinBudget(description, Math.max(0, length));
    return `${kept} [description cut: ${kept.length.toLocaleString('en-US')} of ${description.length.toLocaleString('en-US')} characters shown]`;
  };
  const around = render('').length;
  const written = whole - around;
  const room = budget - around - DESCRIPTION_CUT_MARGIN;
  const length = Math.floor((description.length * Math.max(0, room)) / written);
  const first = cut(length);
  const over = render(first).length - budget;
  // Each character taken off the description takes at least one off the answer.
  return over > 0 ? cut(length - over) : first;
}

/** A tool's input schema without its `$schema` dialect key, which tells the model nothing (zod-made schemas carry one). */
export function schemaWithoutDialect(schema: Tool['inputSchema']): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/** `$schema` names a JSON Schema dialect: noise for the model. A property that happens to be called `$schema` is an object and stays. */
function withoutDialect(key: string, value: unknown): unknown {
  return key === '$schema' && typeof value === 'string' ? undefined : value;
}

/** The JSON the model reads: no dialect keys, no raw control character in a name or description (control-characters.ts). */
export function manifestJson(value: unknown): string {
  return jsonWithoutControls(JSON.stringify(value, withoutDialect));
}

function fullSummary(server: string, state: PublicServerState, manifest: McpServerManifest, instructions: string | undefined): ManifestSummary {
  return {
    server,
    state,
    ...(manifest.protocolVersion ? { protocolVersion: manifest.protocolVersion } : {}),
    ...(instructions ? { instructions: fitInstructions(instructions) } : {}),
    tools: manifest.tools.map((tool) => toolSummary(tool, true)),
    resources: manifest.resources.map(({ uri, name, description, mimeType }) => ({ uri, name, description, mimeType })),
    resourceTemplates: manifest.resourceTemplates.map(({ uriTemplate, name, description, mimeType }) => ({
      uriTemplate,
      name,
      description,
      mimeType,
    })),
    prompts: manifest.prompts.map(({ name, description, arguments: args }) => ({ name, description, arguments: args })),
  };
}

function fitInstructions(instructions: string): string {
  return instructions.length <= INSTRUCTIONS_BUDGET
    ? instructions
    : `${sliceWithinBudget(instructions, INSTRUCTIONS_BUDGET)} [instructions cut at ${INSTRUCTIONS_BUDGET} characters]`;
}

/** Takes entries while their JSON fits in `room`; returns what was taken and the room left. */
function takeWhileFits<T>(entries: readonly T[], room: number): { taken: T[]; room: number } {
  const taken: T[] = [];
  for (const entry of entries) {
    const cost = manifestJson(entry).length + 1;
    if (cost > room) break;
    taken.push(entry);
    room -= cost;
  }
  return { taken, room };
}

/** Room kept for the fixed fields, the note and the counts of the short form. */
const SHORT_FORM_OVERHEAD = 700;

function shortSummary(full: ManifestSummary, manifest: McpServerManifest, budget: number): ManifestSummary {
  let room = budget - SHORT_FORM_OVERHEAD - (full.instructions?.length ?? 0) - full.server.length;
  const tools = takeWhileFits(manifest.tools.map((tool) => toolSummary(tool, false)), room);
  // A template stands for any number of resources and a server has few prompts: both before the resources, which can run to thousands.
  const resourceTemplates = takeWhileFits(full.resourceTemplates, (room = tools.room));
  const prompts = takeWhileFits(full.prompts, (room = resourceTemplates.room));
  const resources = takeWhileFits(full.resources, prompts.room);
  const omitted = {
    tools: full.tools.length - tools.taken.length,
    resources: full.resources.length - resources.taken.length,
    resourceTemplates: full.resourceTemplates.length - resourceTemplates.taken.length,
    prompts: full.prompts.length - prompts.taken.length,
  };
  const kinds = [
    ['tools', 'tools'],
    ['resources', 'resources'],
    ['resourceTemplates', 'resource templates'],
    ['prompts', 'prompts'],
  ] as const;
  const counts = kinds.map(([key, words]) => `${words}: ${full[key].length}`).join(', ');
  const notListed = kinds.flatMap(([key, words]) => (omitted[key] > 0 ? [`${words}: ${omitted[key]}`] : []));
  const more = notListed.length > 0 ? ` Not listed for want of room (${notListed.join(', ')}).` : '';
  return {
    server: full.server,
    state: full.state,
    ...(full.protocolVersion ? { protocolVersion: full.protocolVersion } : {}),
    ...(full.instructions ? { instructions: full.instructions } : {}),
    form: 'short',
    note:
      `The full manifest (${counts}) is over the ${budget}-character result budget, so tools are listed by name ` +
      `and one-line description.${more} Call load_mcp with "server" and "tool" to get one tool's input schema before calling it.`,
    tools: tools.taken,
    resources: resources.taken,
    resourceTemplates: resourceTemplates.taken,
    prompts: prompts.taken,
    omitted,
  };
}

/** The whole manifest when its JSON fits the budget, else the short form. Returns the summary and its JSON text. */
export function summarizeManifest(
  server: string,
  state: PublicServerState,
  manifest: McpServerManifest,
  { instructions, budget }: { instructions?: string; budget: number },
): { summary: ManifestSummary; text: string } {
  const full = fullSummary(server, state, manifest, instructions);
  const fullText = manifestJson(full);
  if (fullText.length <= budget) return { summary: full, text: fullText };
  const short = shortSummary(full, manifest, budget);
  return { summary: short, text: manifestJson(short) };
}
