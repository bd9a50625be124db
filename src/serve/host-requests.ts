import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, type ClientCapabilities, type CreateMessageRequest, type ElicitRequest } from '@modelcontextprotocol/server';
import type { McpServerConfig } from '../../machines/types.js';
import { DEFAULT_HOST_HANDLER_TIMEOUT_MS, MAX_OPEN_PAGES, type ElicitationMode, type HostRequestContext, type McpHostHandlers } from '../connection/host-handlers.js';
import type { HostPeer } from './host.js';
import { quoted, terminalLine, terminalLineWithin, terminalText } from '../../machines/control-characters.js';
import { MAX_ARGUMENT_DEPTH } from '../../machines/errors.js';
import { measureJson } from '../../machines/json-fingerprint.js';

/**
 * A relayed request's own limit, as long as the handler's (the manager's 10 minutes, which end it
 * through `context.signal`): the SDK's default of 60 s would cut off a person still answering.
 */
const relayed = (context: HostRequestContext) => ({ signal: context.signal, timeout: DEFAULT_HOST_HANDLER_TIMEOUT_MS, server: context.server });

/**
 * The first line of serve's own approval form. A downstream server's form never starts with it
 * (each starts by naming its server) and never holds it (it is rewritten), so a server cannot
 * dress its form up as serve's to get an answer meant for serve.
 */
export const SERVE_APPROVAL_TITLE = 'Allow this MCP tool call? (asked by mcp-statechart serve)';

/** Where serve says which downstream server a relayed request comes from, in the request's `_meta`. */
export const RELAYED_FROM_META = 'io.github.mcp-statechart/server';

/** Which downstream servers may ask the host for sampling or elicitation (a config entry's `"sampling": false`, `serve --no-sampling`). */
export interface RelaySwitches {
  allows(server: string, capability: 'sampling' | 'elicitation'): boolean;
}

/**
 * The switches as the config says them: an entry's `"sampling": false` / `"elicitation": false`,
 * and `sampling: false` for every server (`serve --no-sampling`). `follow` takes the servers of a
 * re-read config.
 */
export function relaySwitches(servers: Readonly<Record<string, { config: McpServerConfig }>>, options: { sampling: boolean }) {
  let current = servers;
  return {
    allows(server: string, capability: 'sampling' | 'elicitation'): boolean {
      if (capability === 'sampling' && !options.sampling) return false;
      const entry = Object.hasOwn(current, server) ? current[server] : undefined;
      return entry?.config[capability] !== false;
    },
    follow(next: Readonly<Record<string, { config: McpServerConfig }>>): void {
      current = next;
    },
  };
}

const IMITATION = /allow\s+this\s+mcp\s+tool\s+call\??(\s*\(asked by mcp-statechart serve\))?/gi;
// The line `attributed` starts a relayed form with: written by a server, under blank lines that push
// the real one out of view, it named another server ("MCP server "github" asks …: enter your token").
const RELAY_IMITATION = /(?:mcp\s+server[^\n]{0,300}?)?relayed\s+by\s+mcp-statechart\s+serve\)?/gi;
// More than one empty line in a row only pushes the line naming the server out of view.
const BLANK_LINES = /\n(?:[^\S\n]*\n){2,}/g;

function withoutImitations(text: string): string {
  return text
    .replace(IMITATION, '[text imitating mcp-statechart\'s approval form]')
    .replace(RELAY_IMITATION, '[text imitating mcp-statechart\'s line naming the server]');
}

/**
 * A downstream text as it goes up: anything that reads like serve's own approval title is
 * rewritten, and control characters and bidi overrides are shown escaped (line breaks kept), as in
 * the tool descriptions serve gives its host: a host may show the form on a terminal.
 */
function withoutServeTitle(text: string): string {
  return withoutImitations(terminalText(text)).replace(BLANK_LINES, '\n\n');
}

/**
 * How long a field's label (its title, a choice's title) and its description may be as shown.
 * Hosts show them under the message's last line, the one naming the server: a label is a few
 * words, a description a sentence or two, neither a second message posing as serve's.
 */
const FIELD_TITLE_MAX = 80;
const FIELD_DESCRIPTION_MAX = 300;

/**
 * A server's words on one line of at most `max` characters: line breaks and runs of spaces folded
 * to one space, imitations rewritten, then control characters and invisible marks (a zero-width
 * space hiding an imitation) shown escaped.
 */
function oneLineShown(text: string, max: number): string {
  const line = withoutImitations(text.replace(/\s+/g, ' ').trim());
  const whole = terminalLine(line);
  return whole.length <= max ? whole : `${terminalLineWithin(line, max - 1)}…`;
}

type FormField = Extract<ElicitRequest['params'], { requestedSchema: unknown }>['requestedSchema']['properties'][string];

const labelShown = (title: string) => oneLineShown(title, FIELD_TITLE_MAX);
const withTitlesShown = <Choice extends { title: string }>(choices: Choice[]): Choice[] => choices.map((choice) => ({ ...choice, title: labelShown(choice.title) }));

/** The longest string default that goes up: a host shows it in the field, whole. */
const FIELD_DEFAULT_MAX = FIELD_DESCRIPTION_MAX;

/** The values a choice field takes (single or multiple select); undefined for a field of free input. */
function choicesOf(field: FormField): string[] | undefined {
  if ('enum' in field) return field.enum;
  if ('oneOf' in field) return field.oneOf.map((choice) => choice.const);
  if ('items' in field) return 'enum' in field.items ? field.items.enum : field.items.anyOf.map((choice) => choice.const);
  return undefined;
}

/** A free-input string default a host can show whole as it is: short, on one line, nothing escaped, nothing posing as serve. */
function showableAsItIs(value: string): boolean {
  return value.length <= FIELD_DEFAULT_MAX && terminalLine(value) === value && withoutImitations(value) === value;
}

/**
 * Whether a field's default is one its own schema takes and a host can show as it is. A default
 * is a value, not words: the host may send it back unread, so a default escaped or cut for showing
 * would come back changed. One that contradicts its field (not one of its choices, out of its
 * range or length, not an integer) or cannot be shown as it is (long, control characters, an
 * imitation of serve's lines) does not go up, and the field starts empty.
 */
function defaultFits(field: FormField): boolean {
  if (field.default === undefined) return true;
  if (field.type === 'boolean') return typeof field.default === 'boolean';
  if (field.type === 'number' || field.type === 'integer') {
    const value = field.default;
    const integral = field.type === 'number' || Number.isInteger(value);
    return Number.isFinite(value) && integral && value >= (field.minimum ?? -Infinity) && value <= (field.maximum ?? Infinity);
  }
  const choices = choicesOf(field);
  if (field.type === 'array') {
    const values = field.default;
    return Array.isArray(values) && values.length <= (field.maxItems ?? Infinity) && values.every((value) => choices?.includes(value) === true);
  }
  const value = field.default;
  if (typeof value !== 'string') return false;
  if (choices) return choices.includes(value);
  const min = 'minLength' in field ? (field.minLength ?? 0) : 0;
  const max = 'maxLength' in field ? (field.maxLength ?? Infinity) : Infinity;
  return value.length >= min && value.length <= max && showableAsItIs(value);
}

/**
 * The first field of an accepted form whose answer is not among the choices the server gave it
 * (single select: one of them; multiple select: each one of them). The host shows the choices, but
 * nothing keeps it from sending another value, and a server may act on whichever value it is sent;
 * MCP asks a client to check an answer against the schema it was asked with. Undefined when every
 * choice field holds one of its values (or was left out).
 */
function answerOutsideChoices(schema: { properties: Record<string, FormField> }, content: Record<string, unknown>): string | undefined {
  for (const [key, field] of Object.entries(schema.properties)) {
    const choices = choicesOf(field);
    if (choices === undefined || !Object.hasOwn(content, key)) continue;
    const value = content[key];
    const values = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) !== (field.type === 'array') || !values.every((one) => typeof one === 'string' && choices.includes(one))) return key;
  }
  return undefined;
}

/**
 * A field's words as they go up: its title, description and choices' titles, each on one short
 * line, the description starting with the server's name (text after the message's last line
 * still says whose it is); its default only when it fits the field (defaultFits). The values the
 * answer sends back stay as the server gave them.
 */
function fieldShown(given: FormField, server: string): FormField {
  const field: FormField = defaultFits(given) ? given : { ...given, default: undefined };
  const words = {
    ...(typeof field.title === 'string' ? { title: labelShown(field.title) } : {}),
    ...(typeof field.description === 'string' ? { description: `MCP server ${quoted(server)}: ${oneLineShown(field.description, FIELD_DESCRIPTION_MAX)}` } : {}),
  };
  if ('oneOf' in field) return { ...field, ...words, oneOf: withTitlesShown(field.oneOf) };
  if ('items' in field && 'anyOf' in field.items) return { ...field, ...words, items: { ...field.items, anyOf: withTitlesShown(field.items.anyOf) } };
  if ('enumNames' in field && Array.isArray(field.enumNames)) return { ...field, ...words, enumNames: field.enumNames.map(labelShown) };
  return { ...field, ...words };
}

/**
 * A relayed form's message, named at both ends. The rewrites above are text matches: a zero-width
 * space or a Cyrillic "е" in a forged header passes them, and filler lines push the real header
 * out of view. Nothing the server writes can come after the last line, so that one always says
 * whose form it is, however the server dresses up its text.
 */
function attributedMessage(message: string, server: string): string {
  const asked = `MCP server ${quoted(server)} asks (relayed by mcp-statechart serve):\n${withoutServeTitle(message).trimEnd()}`.replace(BLANK_LINES, '\n\n');
  return `${asked}\n— asked by MCP server ${quoted(server)} (relayed by mcp-statechart serve)`;
}

function attributed(params: ElicitRequest['params'], server: string, pageId: string): ElicitRequest['params'] {
  const message = attributedMessage(params.message, server);
  const schema = 'requestedSchema' in params ? params.requestedSchema : undefined;
  const properties = schema ? Object.fromEntries(Object.entries(schema.properties).map(([key, field]) => [key, fieldShown(field, server)])) : undefined;
  return {
    ...params,
    message,
    ...(schema && properties ? { requestedSchema: { ...schema, properties } } : {}),
    // A 2025 host requires a page's `elicitationId` (2026-07-28 dropped it: a modern server's page comes without one); serve's own, so a server's ids never clash with another's.
    ...(params.mode === 'url' ? { elicitationId: pageId } : {}),
    _meta: { ...params._meta, [RELAYED_FROM_META]: server },
  };
}

/**
 * The pages a host accepted to open, by the downstream server's id for each and serve's own id
 * the host was given: a server's `notifications/elicitation/complete` goes up under the id the
 * host knows. Bounded: past MAX_OPEN_PAGES the oldest is forgotten (its notice then not passed on).
 */
class OpenPages {
  private readonly hostIds = new Map<string, string>();

  opened(server: string, elicitationId: string, hostId: string): void {
    this.hostIds.set(JSON.stringify([server, elicitationId]), hostId);
    const oldest = this.hostIds.keys().next();
    if (this.hostIds.size > MAX_OPEN_PAGES && !oldest.done) this.hostIds.delete(oldest.value);
  }

  /** The id the host knows the page by, once: undefined for a page not open. */
  completed(server: string, elicitationId: string): string | undefined {
    const key = JSON.stringify([server, elicitationId]);
    const hostId = this.hostIds.get(key);
    this.hostIds.delete(key);
    return hostId;
  }
}

type SampledMessage = CreateMessageRequest['params']['messages'][number];
type SampledBlock = Exclude<SampledMessage['content'], unknown[]>;

/** A text block as it goes up, escaped as a form's words are: a host may show a sampling request to its person before it asks the model. */
function blockShown(block: SampledBlock): SampledBlock {
  return block.type === 'text' ? { ...block, text: terminalText(block.text) } : block;
}

function messageShown(message: SampledMessage): SampledMessage {
  return { ...message, content: Array.isArray(message.content) ? message.content.map(blockShown) : blockShown(message.content) };
}

/** `includeContext` asks the host to add its own conversation: passed up only to a host that declared it can (`sampling.context`). */
function sampled(params: CreateMessageRequest['params'], server: string, hostTakesContext: boolean): CreateMessageRequest['params'] {
  const includeContext = hostTakesContext ? params.includeContext : params.includeContext === undefined ? undefined : 'none';
  return {
    ...params,
    messages: params.messages.map(messageShown),
    ...(params.systemPrompt === undefined ? {} : { systemPrompt: terminalText(params.systemPrompt) }),
    ...(includeContext === undefined ? {} : { includeContext }),
    _meta: { ...params._meta, [RELAYED_FROM_META]: server },
  };
}

export interface HostRequestOptions {
  /**
   * The downstream servers' connections serve calls of several identities, each from its own host
   * (`serve --http`): a roots request a server keeps for its connection (a 2025-era server's
   * `roots/list`) is answered with an empty list, never with the roots of the host whose call is in
   * flight; roots asked within one call (2026-07-28) still go to that call's host.
   */
  sharedServers?: boolean;
}

/**
 * `serve`'s answers to downstream servers' requests: each goes up to the MCP host that runs
 * `serve`, when that host declared the capability, and is refused with a clear error when it
 * did not or when the server may not ask (`switches`). Downstream servers are offered sampling,
 * elicitation and roots in any case, since they connect before `serve` knows which host will
 * ask (the host's `initialize` comes first, but a server loaded earlier keeps what it was told).
 * URL-mode elicitation is declared to a server only when the host of the call that connects it
 * declared it, and a URL request goes up only to a host that declares it now. What goes up names
 * the server that asks (`_meta`, and an elicitation's message). A page's completion notice goes
 * up to the host it was sent to, under serve's id for it (see OpenPages).
 */
export function hostRequestHandlers(upstream: HostPeer, switches: RelaySwitches = { allows: () => true }, options: HostRequestOptions = {}): McpHostHandlers {
  const requireHost = (capability: keyof ClientCapabilities, context: HostRequestContext) => {
    if ((capability === 'sampling' || capability === 'elicitation') && !switches.allows(context.server, capability)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `MCP server ${quoted(context.server)} asked for ${capability}, but mcp-statechart serve is set not to pass its ${capability} requests to the host.`,
      );
    }
    if (upstream.getClientCapabilities(context.server)?.[capability] === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `MCP server ${quoted(context.server)} asked for ${capability}, but the MCP host running mcp-statechart serve does not offer ${capability}.`,
      );
    }
  };
  const hostOpensPages = (server: string) => upstream.getClientCapabilities(server)?.elicitation?.url !== undefined;
  const hostOpensPagesUnlessAmbiguous = (server: string) => {
    try {
      return hostOpensPages(server);
    } catch (error) {
      if (error instanceof ProtocolError) return false;
      throw error;
    }
  };
  const pages = new OpenPages();
  return {
    sampling: (params, context) => {
      requireHost('sampling', context);
      // Written as JSON for the host, one nested thousands of levels deep overflows the stack, which
      // would read as the host's failure: refused here, at the limit on tool arguments.
      if (measureJson(params, MAX_ARGUMENT_DEPTH, Number.POSITIVE_INFINITY).depth > MAX_ARGUMENT_DEPTH) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `MCP server ${quoted(context.server)} asked for sampling with a request nested more than ${MAX_ARGUMENT_DEPTH} levels deep, which mcp-statechart serve does not pass on to the host.`,
        );
      }
      const hostTakesContext = upstream.getClientCapabilities(context.server)?.sampling?.context !== undefined;
      return upstream.createMessage(sampled(params, context.server, hostTakesContext), relayed(context));
    },
    elicitation: async (params, context) => {
      requireHost('elicitation', context);
      if (params.mode === 'url' && !hostOpensPages(context.server)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `MCP server ${quoted(context.server)} asked the user to open a page, but the MCP host running mcp-statechart serve does not offer URL-mode elicitation.`,
        );
      }
      const pageId = randomUUID();
      const answer = await upstream.elicitInput(attributed(params, context.server, pageId), relayed(context));
      const outside = params.mode !== 'url' && answer.action === 'accept' && answer.content ? answerOutsideChoices(params.requestedSchema, answer.content) : undefined;
      if (outside !== undefined) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `The MCP host running mcp-statechart serve answered the form of MCP server ${quoted(context.server)} with a value for ${quoted(outside)} that is not one of the field's choices; mcp-statechart serve does not pass it on.`,
        );
      }
      if (params.mode === 'url' && params.elicitationId !== undefined && answer.action === 'accept') pages.opened(context.server, params.elicitationId, pageId);
      return answer;
    },
    // The manager passes on only completions of pages this server asked and the host accepted.
    elicitationComplete: ({ server, elicitationId }) => {
      const pageId = pages.completed(server, elicitationId);
      if (pageId !== undefined) upstream.completeElicitation?.(pageId);
    },
    // Asked as the server connects, which calls of several identities may be waiting for: whose host
    // decides is no question to refuse (that failed the connect for all of them), so only forms are
    // declared then; a page request is checked against its own call's host when it comes.
    elicitationModes: (server): ElicitationMode[] => (hostOpensPagesUnlessAmbiguous(server) ? ['form', 'url'] : ['form']),
    // The host's roots, asked each time until it announces a list (see followHostRoots). A server
    // shared by several identities' hosts that keeps them for its connection is told none: one
    // host's roots would hold for every identity's calls (server-filesystem's allowed folders).
    roots: async (context) => {
      if (options.sharedServers && context.keptByConnection === true) return [];
      if (upstream.getClientCapabilities(context.server)?.roots === undefined) return [];
      return (await upstream.listRoots(undefined, relayed(context))).roots;
    },
  };
}
