/** The public shapes of the loader tools. Type-only. */
import type { z } from 'zod';
import type { McpErrorCode } from '../../machines/errors.js';
import type { McpServerConfig } from '../../machines/types.js';
import type { McpConnectionManager } from '../manager.js';
import type { ApprovalOptions } from './approval.js';
import type { ManifestIndex } from '../manifest-index/index.js';
import type { SemanticSearchOptions } from '../search/index.js';

export type LoaderToolName = 'load_mcp' | 'call_mcp_tool' | 'read_mcp_resource' | 'search_mcp_tools';

/** One piece of a result, in the order the server gave it. */
export type LoaderResultPart = LoaderTextPart | LoaderMediaPart;

export interface LoaderTextPart {
  type: 'text';
  text: string;
}

/** An image or audio clip for consumers that pass media to the model (the AI SDK adapter, `serve`). */
export interface LoaderMediaPart {
  type: 'image' | 'audio';
  /** Base64, as the server sent it. */
  data: string;
  mimeType: string;
  /** What stands in for it where only text goes, e.g. `[image: image/png, 1234 bytes, not shown as text]`. */
  description: string;
}

/**
 * What a loader tool hands back, the same for every surface: never a thrown error for expected
 * failures, text within the result budget, and never base64 inside text.
 */
export interface LoaderToolResult {
  /** The whole result as text: the text parts, each media part replaced by its description. */
  text: string;
  isError: boolean;
  /** Text and media parts in order; the text parts together stay within the result budget. */
  content: LoaderResultPart[];
  /** The structured value behind `text`, when there is one (load_mcp: the manifest; call_mcp_tool: `structuredContent`). */
  data?: unknown;
  /**
   * The error behind a failure, when the manager raised one (usually an `McpServerError`: code,
   * server, cause, stderr tail). `text` words it for the model; the CLI words it for a person.
   */
  error?: unknown;
  /**
   * True when the call did not run because its approval was refused. `isError` stays false: for
   * the model a refusal is an answer to explain to the user, not a failure; a script (the CLI's
   * `call`) treats it as one.
   */
  refused?: true;
  /**
   * Set when the loader answered without asking the server (`isError` is true), and why: the
   * server is unknown, off or not allowed (`server_unavailable`), not loaded (`not_loaded`), the
   * tool is not listed (`unknown_tool`), no longer the definition an eager tool offered
   * (`tool_changed`) or not allowed (`policy`), or the arguments are not what
   * the loader tool takes or what the manager sends (nested too deep, too large: `invalid_arguments`).
   * A server that went away between the loader's check and the request is `not_loaded` (disconnected)
   * or `server_unavailable` (removed from the config, or switched off). `serve --audit` writes it as
   * `refused:<why>`.
   */
  notSent?: LoaderRefusalReason;
  /**
   * Set when the request failed rather than being answered (`isError` is true): the code of the
   * manager's `McpServerError`, such as `TIMEOUT`, `CONNECT_FAILED` (a server connected for the
   * call) or `SERVER_CRASHED`. A tool's own `isError` answer leaves it unset. `serve --audit`
   * writes it as `failed:<code>`.
   */
  failed?: McpErrorCode;
  /**
   * With `failed` `REQUEST_FAILED`: the JSON-RPC error code the server answered with (`-32602`, or
   * one of its own). `serve --audit` writes it instead, as `failed:-32602`.
   */
  serverErrorCode?: number;
}

/** Why a loader tool answered without asking the server (`LoaderToolResult.notSent`). */
export type LoaderRefusalReason = 'server_unavailable' | 'not_loaded' | 'unknown_tool' | 'tool_changed' | 'policy' | 'invalid_arguments';

/** A JSON Schema object as OpenAI and Anthropic function calling accept it (no `$schema` key). */
export interface LoaderToolParameters {
  type: 'object';
  properties: Record<string, unknown>;
  required: string[];
  [keyword: string]: unknown;
}

export interface LoaderTool {
  /** A loader tool's name (`LoaderToolName`), or under eager exposure a server tool's `server__tool`. */
  name: string;
  description: string;
  /** Validates the model's arguments; `execute` runs it itself, so callers need not. */
  inputSchema: z.ZodType;
  /** `inputSchema` as JSON Schema, for function-calling APIs. */
  parameters: LoaderToolParameters;
  /**
   * Failures come back as `{ isError: true, text }` the model can act on; it rejects only when
   * `options.signal` aborts (with the abort's `AbortError`).
   */
  execute(args: unknown, options?: LoaderToolCallOptions): Promise<LoaderToolResult>;
}

/** What the caller of a loader tool may pass besides the model's arguments. */
export interface LoaderToolCallOptions {
  /** Cancels the request (the server is sent `notifications/cancelled`, a task `tasks/cancel`). */
  signal?: AbortSignal;
  /** Progress the server reports (and a task's status changes). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /**
   * The request timeout, for the program calling the tool (the CLI's `--timeout`); the model
   * cannot set it. Default: the server's configured timeout.
   */
  timeoutMs?: number;
  /** Where `timeoutMs` was set, as a TIMEOUT's message names it (the CLI: `--timeout`). */
  timeoutSource?: string;
  /**
   * Progress the server reports restarts the timeout; set `maxTotalTimeoutMs` with it
   * (`toAiSdkTools` sets both: restarted on progress, an hour at most in all). Unset, the timeout
   * is as given: asking for progress costs every call a little, and most calls are short.
   */
  resetTimeoutOnProgress?: boolean;
  /** A cap on the whole call, whatever progress says. */
  maxTotalTimeoutMs?: number;
  /** Where `maxTotalTimeoutMs` was set, as a TIMEOUT's message names it. */
  maxTotalTimeoutSource?: string;
}

export interface LoaderPermissions {
  /** A tool set to `false` is not created at all. Absent: allowed. */
  tools?: Partial<Record<LoaderToolName, boolean>>;
  /** Server-level trust by name; patterns may use `*`. Deny wins; no `allow` list means every server. */
  mcps?: { allow?: string[]; deny?: string[] };
  /**
   * Tool-level trust: patterns on `server/tool` (e.g. `fs/write_*`). Deny wins; no
   * `allow` list means every tool of an allowed server. A tool not allowed is left out of
   * load_mcp's answer and refused by call_mcp_tool.
   */
  mcpTools?: { allow?: string[]; deny?: string[] };
}

/** A server as config discovery reports it (`DiscoveredServer` fits). */
export interface DescribedServerEntry {
  config: McpServerConfig;
  description?: string;
  disabled?: boolean;
  /** Why the server is off when its config does not say `disabled` (told to the model instead of "disabled in its config"). */
  disabledBecause?: string;
  /** A project entry the trust policy keeps off (discovery's `trust`): `denied` is never to be approved here. */
  trust?: 'awaiting approval' | 'denied';
  /** Where the entry came from (discovery's `scope` and `source`): a project server's index entry is filed under its `.mcp.json`. */
  scope?: string;
  source?: string;
}

/** Either discovery's record or a plain `mcpServers` record. */
export type LoaderServers = Record<string, DescribedServerEntry | McpServerConfig>;

/** The manager methods the loader tools use; every one of them sends an event of the registry protocol (docs/ARCHITECTURE.md). */
export type LoaderToolsManager = Pick<
  McpConnectionManager,
  'configure' | 'connect' | 'disconnect' | 'callTool' | 'readResource' | 'getState' | 'getManifest' | 'getError' | 'serverStatus' | 'touch' | 'on' | 'getClient' | 'rereadTools'
> &
  /**
   * Where the manifest index keeps the era of each server (a manager's own); without it, each
   * process probes again. `credentialsFromCode`: which servers the default (shared) index must not hold.
   */
  Partial<Pick<McpConnectionManager, 'eras' | 'credentialsFromCode'>>;

export interface CreateLoaderToolsOptions extends ApprovalOptions {
  manager: LoaderToolsManager;
  servers: LoaderServers;
  permissions?: LoaderPermissions;
  /** Characters of a tool result or resource text the model gets before the rest is cut. Default 25,000. */
  resultBudget?: number;
  /**
   * The manifest index search reads and connects fill. Default: `new ManifestIndex()`, the file
   * `~/.ai-zen/mcp-index.json`; pass `new ManifestIndex({ path })` for another place, `false` for
   * none (then search_mcp_tools is not offered, and a tool can be called only after load_mcp).
   * search_mcp_tools is offered only while the index holds a manifest (e.g. after `mcp-statechart
   * index` or one connect) or there are more servers than load_mcp lists. The default index is
   * shared by every manager of the home folder, so servers the manager connects with
   * `oauth.providerFor` (each user's own tools) are neither recorded in it nor read from it; an
   * index you pass keeps them.
   */
  manifestIndex?: ManifestIndex | false;
  /**
   * The optional semantic stage of search_mcp_tools: `embed` turns texts into vectors (any
   * function, e.g. the AI SDK's `embedMany` with a model the application already uses; nothing is
   * downloaded). Tool vectors are kept beside the manifest index; the ranking fuses word and
   * vector rankings by reciprocal rank, the vectors weighted by `vectorWeight`. Without it search
   * ranks by words alone.
   */
  search?: SemanticSearchOptions;
  /**
   * `lazy` (default): the loader tools. `eager`: each server's own tools, named `server__tool`
   * (the loader tools stay beside them while some server's tools are not known). `{ thresholdTokens }`:
   * eager while every server's tools are known (connected or indexed) and their definitions cost
   * at most that many tokens (a quarter of their bytes), else lazy. Decided once, here: the
   * definitions stay the same for the session. The returned array's `exposure` says what was chosen.
   */
  exposure?: ExposureOption;
  /**
   * Why servers the model expects may be missing, in a sentence it reads in load_mcp's
   * description and with every refusal of a name it does not know (e.g. a config file that
   * could not be read, and what to tell the user). Its control characters are escaped.
   */
  serversNotice?: string;
  /**
   * Servers whose config entry was skipped, by name, with why (discovery's error problems about
   * them, which hold names, never values): a call naming one is refused with that reason instead
   * of "Unknown MCP server". Control characters are escaped.
   */
  skippedServers?: Record<string, string>;
}

/**
 * `lazy`: the loader tools, whatever the servers hold (the default). `eager`: every tool of every
 * server whose tools are known, under a name that starts with its server. `{ thresholdTokens }`:
 * eager while the servers' tools cost at most that many tokens of context and every server's
 * tools are known, else lazy.
 */
export type ExposureOption = 'lazy' | 'eager' | { thresholdTokens: number };

/** The choice made and what it was made on; `servers --json` and the demo show it. */
export interface ExposureDecision {
  mode: 'lazy' | 'eager';
  reason: string;
  /** The loader tools' definitions as the model reads them (JSON function definitions), in bytes. */
  loaderBytes: number;
  /** The known servers' tools as direct definitions, in bytes. */
  directBytes: number;
  /** `directBytes / 4`, rounded up: the usual estimate of tokens, which the threshold is compared with. */
  directTokens: number;
  thresholdTokens?: number;
  /** Allowed servers whose tools are not known (not connected, not indexed for their definition): eager cannot list them. */
  unknownServers: string[];
}

/** What createLoaderTools returns: the tools to offer, and why these (with the byte counts of both exposures). */
export type LoaderTools = LoaderTool[] & { readonly exposure: ExposureDecision };
