/** The public shapes of config discovery. Type-only. */
import type { McpServerConfig, McpServerEntry, McpTransportKind } from '../../machines/types.js';
import type { Logger } from '../logger.js';

/** Where a server definition came from: `~/.ai-zen/mcp.json`, a project `.mcp.json`, or a file named explicitly (`--config`). */
export type ConfigScope = 'user' | 'project' | 'explicit';

export interface DiscoveredServer {
  name: string;
  /** The entry as written, after `${VAR}` expansion; fields this library does not know are kept. */
  config: McpServerEntry;
  transport: McpTransportKind;
  scope: ConfigScope;
  /** Absolute path of the file that defined this server (the winning one on a clash). */
  source: string;
  description?: string;
  /** Disabled servers are listed (a CLI shows them) but must not be connected; see `enabledServers`. */
  disabled: boolean;
  /** Why a server the file enables is off anyway (told to the model, which passes it on). */
  disabledBecause?: string;
  /**
   * A project entry the trust policy keeps off (`disabled`, and `disabledBecause` says why): not
   * approved in its current form yet under `ask`, or project servers `denied`.
   */
  trust?: 'awaiting approval' | 'denied';
  /**
   * The entry as the file writes it, before `${VAR}` expansion: what an approval prompt shows
   * (the CLI's is in src/cli/approval-prompt.ts). Holds whatever the file holds: print names, not values.
   */
  written?: McpServerEntry;
}

/**
 * Something wrong in a config file. `error`: a file or a server was not loaded. `warning`: it was
 * loaded, but not quite as written (a clash, an unset variable). Never carries env or header values.
 */
export interface ConfigProblem {
  severity: 'error' | 'warning';
  file: string;
  server?: string;
  /** The field inside the server entry, e.g. `args`, `args[2]`, `env.GITHUB_TOKEN`, `headers.Authorization`. */
  field?: string;
  message: string;
  /** 1-based position, for files that are not valid JSON. */
  line?: number;
  column?: number;
}

/** Patterns on `server/tool`; the shape of the loader tools' `permissions.mcpTools`. */
export interface ToolPatterns {
  allow?: string[];
  deny?: string[];
}

export interface DiscoveryResult {
  /** Null-prototype: a server may be called `__proto__` without harm. */
  servers: Record<string, DiscoveredServer>;
  problems: ConfigProblem[];
  /** The files' `permissions.mcpTools`, merged (see src/config/tool-permissions.ts); pass it on as `permissions.mcpTools`. */
  toolPermissions?: ToolPatterns;
  /**
   * Project entries the trust policy keeps off whose name a server of another file (the user's)
   * also has: that one stays in `servers` as it is, in use; these are only listed (the CLI's
   * `servers` shows them). Once approved, a project entry overrides the other, as a trusted one does.
   */
  shadowed?: DiscoveredServer[];
}

/** What to do with servers from a project's `.mcp.json` (src/config/project-trust.ts applies it). */
export type ProjectServerPolicy = 'trust' | 'ask' | 'deny';

export interface ProjectTrustOptions {
  /** Default `trust`. */
  projectServers?: ProjectServerPolicy;
  /** `ask`: called for each project server not approved in its current form; resolve true to approve it. */
  approveProjectServer?: (server: DiscoveredServer, fingerprint: string) => boolean | Promise<boolean>;
  /** Where approvals (fingerprints only, never values) are kept. Default `~/.ai-zen/mcp-approvals.json`. */
  approvalsPath?: string;
  /** The key the approvals are keyed with (see src/config/approval-key.ts). Default `~/.local/state/mcp-statechart/approval-key`. */
  approvalKeyPath?: string;
}

export interface DiscoverMcpServersOptions extends ProjectTrustOptions {
  /** Default `~/.ai-zen/mcp.json`. */
  userConfigPath?: string;
  /** The folder holding `.mcp.json`. Default: the nearest `.mcp.json` walking up from `cwd`, stopping at the git root. */
  projectRoot?: string;
  /** Explicit files that replace discovery (the CLI's `--config`); later files win a name clash. */
  configPaths?: string[];
  /** Where `${VAR}` values come from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Every problem is also sent here as a warning. Default: silent. */
  logger?: Logger;
  /** Start of the project walk and base of relative paths. Default `process.cwd()`. */
  cwd?: string;
}

export interface WatchMcpServersOptions extends DiscoverMcpServersOptions {
  /** Quiet time after the last file event before re-reading. Default 100 ms. */
  debounceMs?: number;
  /** Also call `onChange` once with the current result when watching starts. Default false. */
  emitInitial?: boolean;
}

export interface ConfigWatcher {
  /** Stops watching; no `onChange` call happens after the returned promise resolves. */
  close(): Promise<void>;
}

/** The part of `McpConnectionManager` that `watchIntoManager` needs. */
export interface ConfigurableManager {
  configure(servers: Record<string, McpServerConfig>): void;
}
