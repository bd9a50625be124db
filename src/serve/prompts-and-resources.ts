import { ProtocolError, ProtocolErrorCode, type CompleteRequest, type CompleteResult, type GetPromptResult, type InputRequiredResult, type ReadResourceResult, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { McpCompletionParams, McpServerManifest } from '../../machines/types.js';
import type { McpRegistryEmitted } from '../../machines/types.js';
import type { LoaderToolCallOptions } from '../tools/index.js';
import type { ServeHost } from './host.js';
import type { RoundRequest, RoundResults } from './host-rounds.js';
import { quoted } from '../../machines/control-characters.js';
import { MAX_ARGUMENT_DEPTH } from '../../machines/errors.js';
import { measureJson } from '../../machines/json-fingerprint.js';
import { hostFailureText } from '../tools/failure-text.js';
import type { LoaderToolsSurface } from '../tools/surface.js';
import { listPager } from './list-pages.js';
import { MAX_SERVER_NAME_CHARACTERS } from '../text-limits.js';

/** What the prompt and resource relay needs of the manager. */
export interface ServedServers {
  getManifest(name: string): McpServerManifest | undefined;
  getState(name: string): string;
  connect(name: string): Promise<McpServerManifest>;
  getPrompt(name: string, prompt: string, args?: Record<string, string>, options?: { signal?: AbortSignal }): Promise<GetPromptResult>;
  readResource(name: string, uri: string, options?: { signal?: AbortSignal }): Promise<ReadResourceResult>;
  /** No values from a server that does not declare completions. */
  complete(name: string, params: McpCompletionParams, options?: { signal?: AbortSignal }): Promise<CompleteResult>;
  on<T extends McpRegistryEmitted['type']>(type: T, handler: (event: Extract<McpRegistryEmitted, { type: T }>) => void): () => void;
}

/**
 * `prompts/list`, `prompts/get`, `resources/list`, `resources/read` and `completion/complete` for the host: the
 * prompts and resources of the servers loaded so far (and allowed), each prompt named
 * `server/prompt` and each resource's URI `mcp-statechart://<server>/<its URI>`, with
 * `list_changed` sent as servers load or change their lists. A read goes only to the server its
 * URI names (two servers may list one URI: neither can answer for the other), and what it
 * answers comes back under that server's name. A server that has since gone idle connects again.
 */
export function offerPromptsAndResources(host: ServeHost, servers: ServedServers, isAllowed: (server: string) => boolean, onLegacyInstance?: LegacyInstanceHook): () => void {
  const offer = promptsAndResourcesOffer(
    servers,
    isAllowed,
    () => {
      void host.sendPromptListChanged().catch(() => {});
      void host.sendResourceListChanged().catch(() => {});
    },
    'serve',
  );
  const inRounds: InRounds = (request, ctx, { server }, start) => {
    host.heard(ctx);
    return host.rounds.run(request, ctx, start, { server });
  };
  const subscriptionStops: Array<() => void> = [];
  host.onInstance((instance, era) => {
    offer.install(instance, isAllowed, directly, undefined, era === 'modern' ? inRounds : undefined);
    if (era === 'legacy' && onLegacyInstance) subscriptionStops.push(onLegacyInstance(instance, () => offer.names(isAllowed)));
  });
  return () => {
    offer.stop();
    for (const stop of subscriptionStops.splice(0)) stop();
  };
}

/** Sets up more on a 2025-era host's instance (before it connects), given the servers it is shown; returns a stop function. */
export type LegacyInstanceHook = (instance: Server, names: () => string[]) => () => void;

/** The offer itself: `install` sets an instance's handlers for what `isAllowed` lets it see (`serve --http` builds an instance per request and identity). */
export interface PromptsAndResourcesOffer {
  install(instance: Server, isAllowed: (server: string) => boolean, around?: AroundUse, manifestOf?: ManifestOf, inRounds?: InRounds, onHidden?: OnHidden): void;
  /** The servers loaded so far that `isAllowed` lets a host see. */
  names(isAllowed: (server: string) => boolean): string[];
  stop(): void;
}

/** A prompt get, resource read or completion: `name` is the prompt's name or the resource's URI or template on its server. */
export interface ServedUse {
  kind: 'prompt' | 'resource' | 'completion';
  server: string;
  name: string;
}

/**
 * Runs one prompt get, resource read or completion, e.g. to audit it; the signal it may give `run`
 * stops the request too (`serve --http`: its caller's access was withdrawn).
 */
export type AroundUse = <T>(use: ServedUse, run: (stop?: AbortSignal) => Promise<T>) => Promise<T>;

const directly: AroundUse = (_use, run) => run();

/** The request's own signal and the wrapper's `stop`, whichever there are. */
const stoppedBy = (signal: AbortSignal | undefined, stop: AbortSignal | undefined) => (signal && stop ? AbortSignal.any([signal, stop]) : (signal ?? stop));

/**
 * Told of a prompt get, resource read or completion that names a server `isAllowed` hides (the
 * host is answered "Unknown", as for a server that does not exist), e.g. to audit the attempt.
 */
export type OnHidden = (use: ServedUse) => void;

/**
 * Runs a 2026-07-28 host's prompt get or resource read (`use`) in input rounds, as its tool
 * calls are (HostInputRounds): what the server asks on the way (elicitation, sampling, roots)
 * goes back as `input_required` on this request. A 2025 host has none: its requests are asked directly.
 */
export type InRounds = <M extends 'prompts/get' | 'resources/read'>(
  request: RoundRequest<M>,
  ctx: ServerContext,
  use: ServedUse,
  start: (options: LoaderToolCallOptions) => Promise<RoundResults[M]>,
) => Promise<RoundResults[M] | InputRequiredResult>;

/** A 2025 host's request, run at once under its own cancel. */
const atOnce: InRounds = (_request, ctx, _use, start) => start({ signal: ctx.mcpReq.signal });

/** The manifest a host is shown of a server (`serve --http`: the caller's own reading of a list the server calls private). */
export type ManifestOf = (server: string) => Promise<McpServerManifest | undefined>;

/**
 * Follows which servers have loaded; `listsChanged` runs, with the server whose lists did, when what a host
 * allowed `announced` sees may have changed; `surface` is who the hosts are (`serve` on stdio, a `serve --http` gateway's callers).
 */
export function promptsAndResourcesOffer(
  servers: ServedServers,
  announced: (server: string) => boolean,
  listsChanged: (server: string) => void,
  surface: LoaderToolsSurface,
): PromptsAndResourcesOffer {
  const loaded = new Set<string>();
  const pages = { prompts: listPager(), resources: listPager(), resourceTemplates: listPager() };
  const shared: ManifestOf = async (server) => servers.getManifest(server);
  const namesFor = (isAllowed: (server: string) => boolean) => [...loaded].filter(isAllowed);

  const install = (instance: Server, isAllowed: (server: string) => boolean, around: AroundUse = directly, manifestOf: ManifestOf = shared, inRounds: InRounds = atOnce, onHidden?: OnHidden) => {
    const names = () => namesFor(isAllowed);
    /** `split` of what the host named; when it names no server this host sees, `onHidden` hears of a hidden one. */
    const seen = <T>(kind: 'prompt' | 'resource' | 'completion', named: { type: 'prompt' | 'uri'; text: string }, split: () => T): T => {
      try {
        return split();
      } catch (error) {
        const target = named.type === 'uri' ? hiddenUriTarget(named.text) : promptTarget(named.text, [...loaded]);
        if (target && !target.meant.some(isAllowed)) onHidden?.({ kind, server: target.server, name: target.name });
        throw error;
      }
    };
    const offered = () => Promise.all(names().map(async (name) => ({ name, manifest: await manifestOf(name) })));
    instance.setRequestHandler('prompts/list', async (request) => {
      const prompts = (await offered()).flatMap(({ name, manifest }) =>
        (manifest?.prompts ?? []).map((prompt) => ({ ...prompt, name: `${name}/${prompt.name}` })),
      );
      const { page, nextCursor } = pages.prompts(prompts, request.params?.cursor);
      return nextCursor === undefined ? { prompts: page } : { prompts: page, nextCursor };
    });
    instance.setRequestHandler('prompts/get', async (request, ctx) => {
      const { server, prompt } = seen('prompt', { type: 'prompt', text: request.params.name }, () => splitPromptName(request.params.name, names()));
      const use: ServedUse = { kind: 'prompt', server, name: prompt };
      return namingServerOnOneLine(server, surface, () =>
        inRounds(request, ctx, use, ({ signal }) =>
          around(use, async (stop) => {
            await ensureConnected(servers, server);
            return nestedWithinLimit(server, 'prompts/get', servedPrompt(server, await servers.getPrompt(server, prompt, request.params.arguments, { signal: stoppedBy(signal, stop) })));
          }),
        ),
      );
    });
    instance.setRequestHandler('resources/list', async (request) => {
      const resources = (await offered()).flatMap(({ name, manifest }) =>
        (manifest?.resources ?? []).map((resource) => ({ ...resource, uri: servedUri(name, resource.uri), name: `${name}/${resource.name}` })),
      );
      const { page, nextCursor } = pages.resources(resources, request.params?.cursor);
      return nextCursor === undefined ? { resources: page } : { resources: page, nextCursor };
    });
    // Declared with `resources`: a client lists templates beside resources (this project's own does).
    instance.setRequestHandler('resources/templates/list', async (request) => {
      const resourceTemplates = (await offered()).flatMap(({ name, manifest }) =>
        (manifest?.resourceTemplates ?? []).map((template) => ({ ...template, uriTemplate: servedUri(name, template.uriTemplate), name: `${name}/${template.name}` })),
      );
      const { page, nextCursor } = pages.resourceTemplates(resourceTemplates, request.params?.cursor);
      return nextCursor === undefined ? { resourceTemplates: page } : { resourceTemplates: page, nextCursor };
    });
    instance.setRequestHandler('resources/read', async (request, ctx) => {
      const { server, uri } = seen('resource', { type: 'uri', text: request.params.uri }, () => splitServedUri(request.params.uri, names()));
      const use: ServedUse = { kind: 'resource', server, name: uri };
      return namingServerOnOneLine(server, surface, () =>
        inRounds(request, ctx, use, async ({ signal }) => {
          const read = await around(use, async (stop) => {
            await ensureConnected(servers, server);
            return servers.readResource(server, uri, { signal: stoppedBy(signal, stop) });
          });
          return nestedWithinLimit(server, 'resources/read', { ...read, contents: read.contents.map((content) => ({ ...content, uri: servedUri(server, content.uri) })) });
        }),
      );
    });
    instance.setRequestHandler('completion/complete', async (request, ctx) => {
      const named = request.params.ref.type === 'ref/prompt' ? { type: 'prompt' as const, text: request.params.ref.name } : { type: 'uri' as const, text: request.params.ref.uri };
      const { server, ref } = seen('completion', named, () => completedRef(request.params.ref, names()));
      const name = ref.type === 'ref/prompt' ? ref.name : ref.uri;
      return namingServerOnOneLine(server, surface, () => around({ kind: 'completion', server, name }, (stop) => completion(servers, server, { ...request.params, ref }, stoppedBy(ctx.mcpReq.signal, stop))));
    });
  };

  const stopState = servers.on('mcp.stateChanged', ({ server, state }) => {
    if (state !== 'connected' || loaded.has(server)) return;
    loaded.add(server);
    if (announced(server)) listsChanged(server);
  });
  const stopManifest = servers.on('mcp.manifestChanged', ({ server }) => {
    if (loaded.has(server) && announced(server)) listsChanged(server);
  });
  return {
    install,
    names: namesFor,
    stop: () => {
      stopState();
      stopManifest();
    },
  };
}

const SERVED_SCHEME = 'mcp-statechart://';

/** A downstream resource's URI as the host sees it: the server's name first, so no other server can answer for it. */
export function servedUri(server: string, uri: string): string {
  return `${SERVED_SCHEME}${encodeURIComponent(server)}/${uri}`;
}

/** A prompt's embedded resources and resource links named by server, as a read's contents are: the host reads them back through serve. */
function servedPrompt(server: string, prompt: GetPromptResult): GetPromptResult {
  const messages = prompt.messages.map((message) => {
    const { content } = message;
    if (content.type === 'resource') return { ...message, content: { ...content, resource: { ...content.resource, uri: servedUri(server, content.resource.uri) } } };
    if (content.type === 'resource_link') return { ...message, content: { ...content, uri: servedUri(server, content.uri) } };
    return message;
  });
  return { ...prompt, messages };
}

export function splitServedUri(served: string, loaded: string[]): { server: string; uri: string } {
  const target = uriTarget(served);
  if (target === undefined || !loaded.includes(target.server)) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown resource ${quoted(served.slice(0, 200))}. Resources through mcp-statechart serve are named by server (${SERVED_SCHEME}<server>/<uri>, as resources/list gives them) once the server is loaded with load_mcp; read_mcp_resource takes the server's name and its own URI.`,
    );
  }
  return { server: target.server, uri: target.name };
}

/** The server a served URI names, loaded or not, and the URI on it. */
function uriTarget(served: string): { server: string; name: string } | undefined {
  const slash = served.indexOf('/', SERVED_SCHEME.length);
  const server = served.startsWith(SERVED_SCHEME) && slash !== -1 ? safeDecode(served.slice(SERVED_SCHEME.length, slash)) : undefined;
  return server === undefined ? undefined : { server, name: served.slice(slash + 1) };
}

/** What a name that was refused names: the server and the name on it, and every server it may have meant. */
interface RefusedTarget {
  server: string;
  name: string;
  meant: string[];
}

function hiddenUriTarget(served: string): RefusedTarget | undefined {
  const target = uriTarget(served);
  return target && { ...target, meant: [target.server] };
}

/**
 * The server a `server/prompt` name names: the longest loaded name that prefixes it. One that
 * matches no loaded server may mean any server named by the text before one of its `/`s, loaded
 * or not: it is told with no server and the name as asked, never as one guessed server's.
 */
function promptTarget(name: string, loaded: string[]): RefusedTarget | undefined {
  const server = longestPrefix(name, loaded);
  if (server !== undefined) return { server, name: name.slice(server.length + 1), meant: [server] };
  // Only the text a server's name can be: a host may send a name of millions of `/`s, one guess each.
  const reach = name.slice(0, MAX_SERVER_NAME_CHARACTERS + 1);
  const meant = [...reach.matchAll(/\//g)].map((slash) => reach.slice(0, slash.index));
  return meant.length === 0 ? undefined : { server: '', name, meant };
}

function longestPrefix(name: string, servers: string[]): string | undefined {
  return servers.filter((candidate) => name.startsWith(`${candidate}/`)).sort((a, b) => b.length - a.length)[0];
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** `server/prompt`, where the server name may itself hold a `/`: the longest loaded name that prefixes it wins. */
function splitPromptName(name: string, servers: string[]): { server: string; prompt: string } {
  const server = longestPrefix(name, servers);
  if (server === undefined) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt ${quoted(name)}. Prompts are named "server/prompt" after the server is loaded with load_mcp.`);
  }
  return { server, prompt: name.slice(server.length + 1) };
}

/**
 * The failure of a prompt get or resource read as the host is told it: the manager's errors quote
 * the server's name as the config writes it, and the host gets it on one line, escaped (as the
 * loader tools tell the model), and a stdio server's stderr tail under it when its process died
 * (as call_mcp_tool's failure has it). The SDK answers with the error's `code`, `message` and `data` only. `surface`: `serve` on
 * stdio or a `serve --http` gateway, who can make a login the server wants.
 */
export async function namingServerOnOneLine<T>(server: string, surface: LoaderToolsSurface, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    // A host's own text (a prompt, a resource), not its model's: a login's advice is for its person, as `surface` lets them.
    const message = hostFailureText(error, server, surface);
    if (message === error.message) throw error;
    const { code, data } = error as { code?: unknown; data?: unknown };
    throw Object.assign(new Error(message, { cause: error }), { name: error.name, code, data });
  }
}

/**
 * A server's answer is passed on to the host whole, `_meta` included, so it is checked for depth
 * first: `JSON.stringify` overflows the stack at about 10,000 levels, and the SDK then sends the
 * host nothing at all, leaving its request waiting until its own timeout. The limit is the one on
 * tool arguments.
 */
function nestedWithinLimit<T>(server: string, method: 'prompts/get' | 'resources/read' | 'completion/complete', answer: T): T {
  if (measureJson(answer, MAX_ARGUMENT_DEPTH, Number.POSITIVE_INFINITY).depth <= MAX_ARGUMENT_DEPTH) return answer;
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `MCP server ${quoted(server)} answered ${method} with data nested more than ${MAX_ARGUMENT_DEPTH} levels deep, which mcp-statechart serve does not pass on.`,
  );
}

/** What a host's completion names, on its server: `server/prompt` or a template as resources/templates/list gives it. */
function completedRef(ref: CompleteRequest['params']['ref'], loaded: string[]): { server: string; ref: CompleteRequest['params']['ref'] } {
  if (ref.type === 'ref/prompt') {
    const { server, prompt } = splitPromptName(ref.name, loaded);
    return { server, ref: { ...ref, name: prompt } };
  }
  const { server, uri } = splitServedUri(ref.uri, loaded);
  return { server, ref: { ...ref, uri } };
}

/**
 * Asks the server for a completion through the manager, so that it counts as the server's work (in
 * flight, holding off the idle timer); one that does not declare completions answers no values.
 */
async function completion(servers: ServedServers, server: string, params: CompleteRequest['params'], signal: AbortSignal | undefined): Promise<CompleteResult> {
  await ensureConnected(servers, server);
  const answer = await servers.complete(server, { ref: params.ref, argument: params.argument, context: params.context }, { signal });
  return nestedWithinLimit(server, 'completion/complete', answer);
}

export async function ensureConnected(servers: Pick<ServedServers, 'getState' | 'connect'>, server: string): Promise<void> {
  if (servers.getState(server) !== 'connected') await servers.connect(server);
}
