import { resolve } from 'node:path';
import {
  discoverMcpServers,
  type ConfigProblem,
  type DiscoverMcpServersOptions,
  type DiscoveredServer,
  type DiscoveryResult,
  type ProjectServerPolicy,
  type ToolPatterns,
} from '../config/index.js';
import { reportProblems } from '../config/report-problems.js';
import { silentLogger, type Logger } from '../logger.js';
import { describeServerDefinition } from './approval-prompt.js';
import { askOnTerminal } from './terminal-question.js';
import type { ApprovalPolicy, ExposureOption, LoaderPermissions } from '../tools/index.js';

/** The flags every command shares. */
export interface GlobalOptions {
  config: string[];
  project?: string;
  allow: string[];
  deny: string[];
  allowTool: string[];
  denyTool: string[];
  /** `--approve`: which tool calls need a person's approval; unset: see tool-call-approval.ts and serve-approval.ts. */
  approve?: ApprovalPolicy;
  verbose: boolean;
  projectServers: ProjectServerPolicy;
  /** `--exposure`: the loader tools, the servers' own tools, or whichever fits a token threshold. */
  exposure?: ExposureOption;
}

/**
 * `--config` replaces discovery; otherwise the user file and the project's `.mcp.json`. With
 * `--project-servers ask`, a project server not approved yet is asked about on a terminal
 * (only those of `askAbout` when given); without one (scripts, `serve`) it stays disabled.
 */
export function discover(options: GlobalOptions, logger: Logger, interactive = isInteractive(), askAbout?: readonly string[]): Promise<DiscoveryResult> {
  return discoverMcpServers(discoveryOptions(options, logger, interactive, askAbout));
}

/**
 * `discover` for a command about these servers (`call a`, `login a`): it asks about approving
 * only these servers, and of the config problems it logs only the files' own and these servers';
 * another server is not used, so it stays as it is (awaiting approval, a variable its headers
 * read unset) for `servers` and `doctor`, which show every problem. `worthSaying` leaves out more
 * (`approve` does not tell the person to run `approve`).
 */
export async function discoverFor(
  names: readonly string[],
  options: GlobalOptions,
  logger: Logger,
  interactive = isInteractive(),
  worthSaying: (problem: ConfigProblem, result: DiscoveryResult) => boolean = () => true,
): Promise<DiscoveryResult> {
  const result = await discover(options, silentLogger, interactive, names);
  reportProblems(
    result.problems.filter((problem) => (problem.server === undefined || names.includes(problem.server)) && worthSaying(problem, result)),
    logger,
  );
  return result;
}

/** A file or an entry that could not be loaded (warnings, such as a name clash, do not count). */
export function hasErrors(result: DiscoveryResult): boolean {
  return result.problems.some((problem) => problem.severity === 'error');
}

/** The files `--config` names, as absolute paths; none when discovery finds the files itself. */
export function configFiles(options: GlobalOptions): string[] {
  return options.config.map((file) => resolve(file));
}

/** What `discover` reads with; `serve` watches with the same, so a re-read applies the same trust. */
export function discoveryOptions(options: GlobalOptions, logger: Logger, interactive: boolean, askAbout?: readonly string[]): DiscoverMcpServersOptions {
  const ask = askAbout ? (server: DiscoveredServer) => askAbout.includes(server.name) && askAboutServer(server) : askAboutServer;
  return {
    configPaths: options.config.length > 0 ? configFiles(options) : undefined,
    projectRoot: options.project ? resolve(options.project) : undefined,
    env: process.env,
    logger,
    projectServers: options.projectServers,
    approveProjectServer: interactive ? ask : undefined,
  };
}

export function isInteractive(): boolean {
  // Arguments typed for `call … -` end the terminal's input: a question asked after them would wait for ever.
  return Boolean(process.stdin.isTTY && process.stderr.isTTY && !process.stdin.readableEnded);
}

/** Shows the whole definition (see approval-prompt.ts) and asks. */
async function askAboutServer(server: DiscoveredServer): Promise<boolean> {
  const answer = await askOnTerminal(`${describeServerDefinition(server)}\nAllow it? [y/N] `);
  return /^y(es)?$/i.test(answer.trim());
}

/** A repeatable flag given no times means "no list", which is not the same as an empty allow list. */
function patternList(patterns: string[]): string[] | undefined {
  return patterns.length > 0 ? patterns : undefined;
}

/** The flags, and the config files' tool patterns: their deny lists add to `--deny-tool`; `--allow-tool` replaces their allow list. */
export function permissionsFrom(options: GlobalOptions, fromFiles: ToolPatterns = {}): LoaderPermissions {
  return {
    mcps: { allow: patternList(options.allow), deny: patternList(options.deny) },
    mcpTools: {
      allow: patternList(options.allowTool) ?? fromFiles.allow,
      deny: patternList([...(fromFiles.deny ?? []), ...options.denyTool]),
    },
  };
}
