/** The command line's commands and flags; main.ts runs it. */
import { Command, Help, InvalidArgumentError, Option } from 'commander';
import { homeFolder } from '../config/home-folder.js';
import type { GlobalOptions } from './options.js';
import type { ExposureOption } from '../tools/types.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from '../../machines/options.js';
import { MAX_CALL_WHILE_PROGRESSING_MS } from '../tools/progress-time-limit.js';
import { packageVersion } from './package-root.js';
import { commandWord } from '../../machines/control-characters.js';
import { globalOptionReadersHelp, READ_BY_INDEX_SEARCH_ONLY, readsGlobalOption, unreadGlobalOptionMessage } from './global-option-readers.js';

// Each command loads its own modules when it runs, so `--help` stays fast.

/** Commander's reducer for repeatable flags. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * A parser for a flag that takes a whole number above 0, at most `max`; `hint` says what to give
 * instead. Past 2^53 a number is no longer exact, and the code behind the flag refuses it in its
 * own words (a model's, for search), so the command line refuses it first. `hint` is a sentence of
 * its own, capitalised: commander prints it after its "… is invalid."
 */
function positiveWholeNumber(hint: string, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number <= 0 || number > max) throw new InvalidArgumentError(hint);
    return number;
  };
}

/** The longest timer Node keeps: a longer one fires after 1 ms (TimeoutOverflowWarning). */
const LONGEST_TIMEOUT_MS = 2_147_483_647;

/** When a command's `--timeout` is not given, a request waits as long as the server's entry says, else the manager's default. */
const REQUEST_TIMEOUT_DEFAULT = `(default: the server entry's "timeoutMs", else ${DEFAULT_REQUEST_TIMEOUT_MS})`;
const PROGRESS_CAP_TEXT = `${MAX_CALL_WHILE_PROGRESSING_MS} ms (an hour)`;

/** `--timeout <ms>`: a positive whole number of milliseconds; `description` says what it bounds and what it is when not given. */
function timeoutOption(description: string): Option {
  return new Option('--timeout <ms>', description).argParser(
    positiveWholeNumber(`Give a positive whole number of milliseconds, at most ${LONGEST_TIMEOUT_MS} (about 24 days), e.g. --timeout 120000`, LONGEST_TIMEOUT_MS),
  );
}

/** `--exposure lazy|eager|<tokens>`: a number is the threshold in tokens below which the servers' tools are offered directly. */
function exposureOption(): Option {
  return new Option(
    '--exposure <mode>',
    "what the model is offered: lazy (the loader tools), eager (every server's tools, named server__tool), or a number of tokens: eager while the servers' tools fit in it and all are indexed. Default: lazy",
  ).argParser((value): ExposureOption => {
    if (value === 'lazy' || value === 'eager') return value;
    const thresholdTokens = Number(value);
    if (!Number.isInteger(thresholdTokens) || thresholdTokens <= 0) throw new InvalidArgumentError('Give lazy, eager, or a positive whole number of tokens, e.g. --exposure 4000');
    return { thresholdTokens };
  });
}

/** An option's help without the defaults that say nothing: `(default: [])` on a repeatable flag, `(default: false)` on a switch. */
function quietDefaults(this: Help, option: Option): string {
  return Help.prototype.optionDescription.call(this, option).replace(/ \(default: (\[\]|false)\)/, '');
}

/** `--max-bytes <n>`: a cap on what `call` and `read` print, for whoever wants one. */
function maxBytesOption(): Option {
  return new Option('--max-bytes <n>', 'print at most this many bytes of the result, as shown (escaped on a terminal; with --json, of its text) (default: all of it)').argParser(
    positiveWholeNumber('Give a positive whole number of bytes, e.g. --max-bytes 100000'),
  );
}

/** The flags of `call` and `read` about the result. */
interface ResultFlags {
  json: boolean;
  timeout?: number;
  maxBytes?: number;
  output?: string;
  force: boolean;
  maxFiles: number;
}

function resultOptions({ json, timeout, maxBytes, output, force, maxFiles }: ResultFlags): import('./commands/one-shot.js').OneShotOptions {
  return { json, timeoutMs: timeout, maxBytes, output: output === undefined ? undefined : { path: output, force, maxFiles } };
}

/** `--max-files` when not given: more than any result a person reads through, far fewer than a flood. */
const DEFAULT_MAX_FILES = 100;

/** `--max-files <n>`: how many files one result may write with --output. */
function maxFilesOption(): Option {
  return new Option('--max-files <n>', `with --output: save at most this many files from one result; over it nothing is saved`)
    .argParser(positiveWholeNumber('Give a positive whole number of files, e.g. --max-files 1000'))
    .default(DEFAULT_MAX_FILES);
}

/** The help's closing lines: one example per line, as typed. */
function examples(...lines: string[]): string {
  return `\n${lines.length === 1 ? 'Example' : 'Examples'}:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}

/** What `call` does before a call when no --approve is given: commander's option list cannot say it in one line. */
const CALL_APPROVAL_HELP = `
Approval:
  At a terminal, a call of a tool its server does not mark read-only asks first
  ([y]es / [a]lways this session / [N]o). --approve never calls without asking;
  --approve always asks before every call. Without a terminal (a script, a pipe)
  nothing is asked, unless --approve destructive|always is given: then such calls
  are refused.
`;

/** `--otel`: the OpenTelemetry SDK (optional dependencies) from the standard OTEL_* variables. */
function otelOption(): Option {
  return new Option('--otel', 'export traces and metrics with the OpenTelemetry SDK, set up from the OTEL_* environment variables (OTLP/HTTP to localhost:4318 by default)');
}

/**
 * A preAction hook that refuses `flags` written without `companion` (their help says "with
 * --check", "with --output"): alone they did nothing, and said nothing. Defaults do not count.
 */
function goWith(companion: string, ...flags: string[]): (command: Command, action: Command) => void {
  return (_command, action) => {
    const written = (flag: string) => writtenOn(action, flag);
    if (written(companion)) return;
    const alone = flags.find(written);
    if (alone !== undefined) action.error(`error: ${alone} goes with ${companion}`, { code: 'commander.invalidArgument' });
  };
}

/** Whether `flag`, an option of `command` itself, was written on the command line (a default does not count). */
function writtenOn(command: Command, flag: string): boolean {
  const option = command.options.find((candidate) => candidate.long === flag);
  return option !== undefined && command.getOptionValueSource(option.attributeName()) === 'cli';
}

/**
 * A preAction hook of `search`: in registry mode (--registry, --registry-url) it reads no config
 * and no server or tool pattern, so `search --registry --config x` did nothing with --config and
 * said nothing. Those options are refused there, naming all the ones registry mode ignores.
 */
function refuseIndexOptionsInRegistryMode(search: Command): void {
  if (!writtenOn(search, '--registry') && !writtenOn(search, '--registry-url')) return;
  const ignored = [...READ_BY_INDEX_SEARCH_ONLY, '--server'];
  const given = ignored.find((flag) => writtenOn(search.parent!, flag) || writtenOn(search, flag));
  if (given === undefined) return;
  search.error(
    `error: search --registry does not read ${given}: it searches an MCP Registry, not the servers configured here, so it ignores ${ignored.join(', ')}`,
    { code: 'commander.invalidArgument' },
  );
}

/** `approvals revoke`: the command's name after those of its parents, the program's left out. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** The program's options that global-option-readers.ts governs: all but --version, which every command answers. */
function governedOptions(program: Command): Option[] {
  return program.options.filter((option) => option.long !== undefined && option.long !== '--version');
}

/**
 * A preAction hook: a global option written for a command that does not read it (global-option-readers.ts)
 * is refused, naming the commands that read it. Defaults do not count.
 */
function refuseUnreadGlobalOptions(program: Command, action: Command): void {
  const path = commandPath(action);
  const unread = governedOptions(program).find(
    (option) => program.getOptionValueSource(option.attributeName()) === 'cli' && !readsGlobalOption(path, option.long!),
  );
  if (unread) action.error(unreadGlobalOptionMessage(path, unread.long!), { code: 'commander.invalidArgument' });
}

/**
 * Every file the CLI keeps is under the home folder. An empty or relative HOME would put them in
 * the working folder, where a cloned repository's `.ai-zen/mcp.json` would count as the user's own
 * file and its servers would start without an approval.
 */
function refuseRelativeHome(): void {
  homeFolder();
}

/** A command's help lists, of the program's options, only those it reads. */
function readGlobalOptions(this: Help, command: Command): Option[] {
  let program = command;
  while (program.parent) program = program.parent;
  const governed = new Set(governedOptions(program));
  const path = commandPath(command);
  return Help.prototype.visibleGlobalOptions.call(this, command).filter((option) => !governed.has(option) || readsGlobalOption(path, option.long!));
}

function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals() as GlobalOptions;
}

type Inspect = NonNullable<import('../manager.js').McpConnectionManagerOptions['inspect']>;

/**
 * `--inspect`: the relay runs on 127.0.0.1 for as long as the command. What to open goes to
 * stderr (stdout is the protocol for `serve`); on a terminal the demo waits for Enter, so the
 * page can be opened before the session starts.
 */
async function withInspector<T>(enabled: boolean | undefined, waitForEnter: boolean, run: (inspect?: Inspect) => Promise<T>): Promise<T> {
  if (!enabled) return run();
  const { startInspector } = await import('../inspection/relay.js');
  const inspector = await startInspector();
  process.stderr.write(`${inspector.instructions}\n`);
  try {
    if (waitForEnter && process.stdin.isTTY) {
      const { pressEnter } = await import('./press-enter.js');
      await pressEnter('Press Enter once the inspector page is open. ');
    }
    return await run(inspector.inspect);
  } finally {
    await inspector.stop();
  }
}

/** The flags of `serve`. */
interface ServeFlags {
  inspect?: boolean;
  view?: boolean;
  timeout?: number;
  sampling: boolean;
  otel?: boolean;
  metrics?: string;
  http?: string;
  gateway?: string;
  audit?: string;
  sessionKeyFile?: string;
  health?: string;
}

export function buildProgram(): Command {
  const program = new Command('mcp-statechart')
    .description('Lazy, reliable access to many MCP servers: each connection is a statechart; the model sees the loader tools (load_mcp, call_mcp_tool, read_mcp_resource, search_mcp_tools).')
    .version(packageVersion())
    .option('-c, --config <file>', 'read servers from this mcp.json instead of discovery (repeatable; later files win)', collect, [])
    .option('-p, --project <dir>', 'the project folder whose .mcp.json to read (default: nearest one above the working folder)')
    .option('--allow <pattern>', 'only these servers may be used (repeatable; * wildcards)', collect, [])
    .option('--deny <pattern>', 'these servers may not be used; deny wins (repeatable; * wildcards)', collect, [])
    .option('--allow-tool <pattern>', 'only these tools may be used, as server/tool (repeatable; * wildcards)', collect, [])
    .option('--deny-tool <pattern>', "these tools are hidden and refused, as server/tool, e.g. 'fs/write_*' (repeatable)", collect, [])
    .addOption(
      new Option('--approve <policy>', 'which tool calls need approval: never; destructive (tools the server does not claim read-only: trusts its annotations); always (every call: the setting for servers you do not trust). Default: destructive when someone can be asked')
        .choices(['never', 'destructive', 'always']),
    )
    .option('-v, --verbose', 'log lifecycle and debug lines to stderr', false)
    .addOption(
      new Option('--project-servers <policy>', "servers from the project's .mcp.json: ask once per definition, trust, or deny")
        .choices(['ask', 'trust', 'deny'])
        .default('ask'),
    )
    .addOption(exposureOption())
    .showHelpAfterError('(run with --help for usage)')
    // Subcommands inherit this: each one's --help also lists those of the flags above it reads.
    .configureHelp({ showGlobalOptions: true, optionDescription: quietDefaults, visibleGlobalOptions: readGlobalOptions })
    .exitOverride();

  program
    .command('demo')
    .description('a scripted agent session on the built-in config: two demo servers, every lifecycle step printed live')
    .addOption(new Option('--inspect', 'also start the Stately inspector relay on 127.0.0.1 and print what to open'))
    .addOption(new Option('--view', 'also serve the live lifecycle page on 127.0.0.1 (needs no internet) and print its address'))
    .addOption(otelOption())
    .addHelpText('after', examples('mcp-statechart demo', 'mcp-statechart demo --view'))
    .action(async (options: { inspect?: boolean; view?: boolean; otel?: boolean }, command: Command) => {
      const [{ runDemo }, { withTelemetry }] = await Promise.all([import('./commands/demo.js'), import('./otel.js')]);
      await withTelemetry(options, () => withInspector(options.inspect, true, (inspect) => runDemo(globalOptions(command), { inspect }, { view: options.view })));
    });

  program
    .command('servers')
    .description('list the discovered servers: scope, transport, status (enabled, disabled, denied), indexed tools, description, problems; with --check, connect each and add its health; exit 1 if a file or entry has errors (or, with --check, a server does not work)')
    .option('--json', 'print JSON for scripts', false)
    .option('--check', 'connect each enabled, allowed server once and add a health column: connected, needs login, failed and why, pending approval, disabled, denied', false)
    .option('--concurrency <n>', 'with --check: how many servers to connect at once', positiveWholeNumber('Give a positive whole number, e.g. --concurrency 8'), 4)
    .addOption(timeoutOption('with --check: give each server this long to connect, in milliseconds').default(30_000))
    .addHelpText('after', examples('mcp-statechart servers', 'mcp-statechart servers --check --timeout 10000', 'mcp-statechart servers --json --config ./team-mcp.json'))
    .hook('preAction', goWith('--check', '--concurrency', '--timeout'))
    .action(async (options: { json: boolean; check: boolean; concurrency: number; timeout: number }, command: Command) => {
      const [{ configFiles, discover, hasErrors, permissionsFrom }, { silentLogger }, { exposureDecision, formatServersTable, serversReport, tableAsChecked }, { checkHealth, anyUnhealthy }, { ManifestIndex }, { terminalJson, writeListing }, { stdoutColumns }, { endIfInterrupted }] =
        await Promise.all([
          import('./options.js'),
          import('../logger.js'),
          import('./commands/servers.js'),
          import('./commands/server-health.js'),
          import('../manifest-index/index.js'),
          import('./terminal-text.js'),
          import('./fitted-table.js'),
          import('./cancel-on-interrupt.js'),
        ]);
      // Problems are part of the listing itself, so they are not logged a second time.
      const result = await endIfInterrupted(discover(globalOptions(command), silentLogger), options.json);
      // The index the check records in is the one listed: a server just connected shows as indexed.
      const index = new ManifestIndex();
      const permissions = permissionsFrom(globalOptions(command));
      const columns = stdoutColumns();
      // Into a pipe or a file the table is written as the checks end; a terminal's is fitted to its width at the end.
      const asChecked = options.check && !options.json && columns === undefined ? tableAsChecked(result, index, permissions, writeListing) : undefined;
      const health = options.check ? await checkHealth(globalOptions(command), result, { ...options, index }, asChecked) : undefined;
      const exposure = await exposureDecision(result, index, globalOptions(command));
      const configProblems = hasErrors(result);
      const unhealthy = health !== undefined && anyUnhealthy(health);
      if (options.json) {
        const failure = configProblems ? { code: 'CONFIG_PROBLEMS' } : unhealthy ? { code: 'CHECK_FAILED' } : {};
        process.stdout.write(`${terminalJson({ ok: !configProblems && !unhealthy, ...failure, ...serversReport(result, index, permissions, health, exposure) })}
`);
      } else writeListing(formatServersTable(result, index, permissions, health, exposure, configFiles(globalOptions(command)), columns, asChecked !== undefined));
      process.exitCode = configProblems || unhealthy ? 1 : 0;
    });

  program
    .command('index')
    .description('connect each enabled, allowed server once and record its tools in ~/.ai-zen/mcp-index.json, for search_mcp_tools')
    .option('--concurrency <n>', 'servers connecting at the same time', positiveWholeNumber('Give a positive whole number, e.g. --concurrency 8'), 4)
    .addOption(timeoutOption('give each server this long to connect, in milliseconds (default: 30000)'))
    .option('--prune', 'also take out the entries of servers no config names any more (a --config file you indexed from names its servers while it is there), and of projects whose config file is gone (the index is shared with programs that pass their own servers: their entries go too)', false)
    .addHelpText('after', examples('mcp-statechart index', 'mcp-statechart index --concurrency 8 --timeout 60000', 'mcp-statechart index --prune'))
    .action(async (options: { concurrency: number; timeout?: number; prune: boolean }, command: Command) => {
      const { runIndex } = await import('./commands/index-servers.js');
      process.exitCode = await runIndex(globalOptions(command), { concurrency: options.concurrency, timeoutMs: options.timeout, prune: options.prune });
    });

  program
    .command('load')
    .description('connect to a server and print its tools and resources (load_mcp)')
    .argument('<server>', 'server name')
    .option('--json', 'print one JSON object for scripts: {ok, server, text, data} or {ok: false, code, server, error}', false)
    .addOption(timeoutOption('give the server this long to connect and list what it has, in milliseconds (default: its connect timeout)'))
    .addOption(otelOption())
    .addHelpText('after', examples('mcp-statechart load memory', 'mcp-statechart load memory --json --timeout 10000'))
    .action(async (server: string, options: { json: boolean; timeout?: number; otel?: boolean }, command: Command) => {
      const [{ runOneShot }, { withTelemetry }] = await Promise.all([import('./commands/one-shot.js'), import('./otel.js')]);
      process.exitCode = await withTelemetry(options, () =>
        runOneShot(globalOptions(command), 'load_mcp', { server }, { json: options.json, timeoutMs: options.timeout }),
      );
    });

  program
    .command('call')
    .description('call a tool on a server and print the result (call_mcp_tool)')
    .argument('<server>', 'server name')
    .argument('<tool>', 'tool name')
    .argument('[json-arguments]', 'the tool arguments as a JSON object, e.g. \'{"text":"hi"}\', or - to read them from stdin')
    .option('--args-file <file>', 'read the tool arguments (a JSON object) from this file; - is stdin')
    .option('--json', 'print one JSON object for scripts: {ok, server, text, data, saved} or {ok: false, code, server, error}', false)
    .addOption(maxBytesOption())
    .option('-o, --output <file|folder>', 'save images, audio and binary resources there (a folder: one file each, named from the content)')
    .option('--force', 'with --output: replace files that are already there', false)
    .addOption(maxFilesOption())
    .addOption(timeoutOption(`give the tool call this long to answer, in milliseconds ${REQUEST_TIMEOUT_DEFAULT}; each progress report restarts it, up to ${PROGRESS_CAP_TEXT} in all; connecting is counted apart and gets as long, at least ${DEFAULT_CONNECT_TIMEOUT_MS}`))
    .addOption(otelOption())
    .addHelpText('after', `${CALL_APPROVAL_HELP}${examples('mcp-statechart call memory read_graph', 'mcp-statechart call everything get-tiny-image --output ./images/', 'mcp-statechart call memory search_nodes \'{"query":"coffee"}\'', 'echo \'{"query":"coffee"}\' | mcp-statechart call memory search_nodes -')}`)
    .hook('preAction', goWith('--output', '--force', '--max-files'))
    .action(
      async (server: string, tool: string, json: string | undefined, options: { argsFile?: string; otel?: boolean } & ResultFlags, command: Command) => {
        const [{ runCall }, { withTelemetry }] = await Promise.all([import('./commands/one-shot.js'), import('./otel.js')]);
        process.exitCode = await withTelemetry(options, () => runCall(globalOptions(command), server, tool, json, options.argsFile, resultOptions(options)));
      },
    );

  program
    .command('read')
    .description('read a resource from a server and print it (read_mcp_resource)')
    .argument('<server>', 'server name')
    .argument('<uri>', 'resource URI')
    .option('--json', 'print one JSON object for scripts: {ok, server, text, saved} or {ok: false, code, server, error}', false)
    .addOption(maxBytesOption())
    .option('-o, --output <file|folder>', 'save a binary resource there (a folder: named from its URI)')
    .option('--force', 'with --output: replace a file that is already there', false)
    .addOption(maxFilesOption())
    .addOption(timeoutOption(`give the resource read this long to answer, in milliseconds ${REQUEST_TIMEOUT_DEFAULT}; connecting is counted apart and gets as long, at least ${DEFAULT_CONNECT_TIMEOUT_MS}`))
    .addHelpText('after', examples('mcp-statechart read everything demo://resource/static/document/architecture.md', 'mcp-statechart read everything demo://resource/dynamic/blob/1 --output ./blob.txt'))
    .hook('preAction', goWith('--output', '--force', '--max-files'))
    .action(async (server: string, uri: string, options: ResultFlags, command: Command) => {
      const { runOneShot } = await import('./commands/one-shot.js');
      process.exitCode = await runOneShot(globalOptions(command), 'read_mcp_resource', { server, uri }, resultOptions(options));
    });

  program
    .command('prompts')
    .description("connect to a server and list its prompts with their arguments")
    .argument('<server>', 'server name')
    .option('--json', 'print one JSON object for scripts: {ok, server, prompts} or {ok: false, code, server, error}', false)
    .addOption(timeoutOption('give the server this long to connect and list its prompts, in milliseconds (default: its connect timeout)'))
    .addHelpText('after', examples('mcp-statechart prompts everything', 'mcp-statechart prompts everything --json'))
    .action(async (server: string, options: { json: boolean; timeout?: number }, command: Command) => {
      const { runPrompts } = await import('./commands/prompts.js');
      process.exitCode = await runPrompts(globalOptions(command), server, options);
    });

  program
    .command('prompt')
    .description("get one of a server's prompts, filled in with the arguments, and print its messages")
    .argument('<server>', 'server name')
    .argument('<name>', 'prompt name')
    .argument('[arguments...]', 'the prompt arguments as name=value')
    .option('--json', 'print one JSON object for scripts: {ok, server, prompt, messages} or {ok: false, code, server, error}', false)
    .addOption(timeoutOption(`give the server this long to start, list its prompts and fill in the prompt, all together, in milliseconds (default: its connect timeout, then the server entry's "timeoutMs", else ${DEFAULT_REQUEST_TIMEOUT_MS})`))
    .addHelpText('after', examples("mcp-statechart prompt everything args-prompt city=Paris state=''", 'mcp-statechart prompt everything simple-prompt --json'))
    .action(async (server: string, name: string, pairs: string[], options: { json: boolean; timeout?: number }, command: Command) => {
      const { runPrompt } = await import('./commands/prompts.js');
      process.exitCode = await runPrompt(globalOptions(command), server, name, pairs, options);
    });

  program
    .command('doctor')
    .description('connect every enabled, allowed server and report what works: state, connect time, counts, errors and hints (exit 1 if any fails)')
    .option('--json', 'print JSON for scripts', false)
    .option('--concurrency <n>', 'how many servers to connect at once', positiveWholeNumber('Give a positive whole number, e.g. --concurrency 8'), 4)
    .addOption(timeoutOption('give each server this long to connect, in milliseconds').default(30_000))
    .addOption(otelOption())
    .addHelpText('after', examples('mcp-statechart doctor', 'mcp-statechart doctor --json --timeout 60000'))
    .action(async (options: { json: boolean; concurrency: number; timeout: number; otel?: boolean }, command: Command) => {
      const [{ runDoctor }, { withTelemetry }] = await Promise.all([import('./commands/doctor.js'), import('./otel.js')]);
      process.exitCode = await withTelemetry(options, () => runDoctor(globalOptions(command), options));
    });

  program
    .command('serve')
    .description('run an MCP server over stdio that exposes the loader tools (for Claude Desktop, IDEs, any MCP host)')
    .addOption(new Option('--inspect', 'also start the Stately inspector relay on 127.0.0.1 (its address goes to stderr)'))
    .addOption(new Option('--view', 'also serve the live lifecycle page on 127.0.0.1 (its address goes to stderr)'))
    .addOption(timeoutOption(`give each server's requests this long to answer when its entry sets no "timeoutMs", in milliseconds (default: ${DEFAULT_REQUEST_TIMEOUT_MS}); a tool call whose host asked for progress restarts it on each report, up to ${PROGRESS_CAP_TEXT} in all`))
    .option('--no-sampling', "refuse every downstream server's sampling requests instead of passing them to the host (per server: \"sampling\": false in its entry)")
    .addOption(otelOption())
    .option('--metrics <[host:]port>', 'serve Prometheus metrics at http://[host:]port/metrics on a listener of its own (host default 127.0.0.1)')
    .option('--http <[host:]port>', 'serve Streamable HTTP at http://[host:]port/mcp instead of stdio, both protocol eras (host default 127.0.0.1; another address needs --gateway)')
    .option('--gateway <file>', 'with --http: inbound auth and policy per identity from this JSON file (tokens as sha256 digests, optional OAuth issuer); watched')
    .option('--audit <file|->', 'with --http: one JSON line per tool call, resource read and prompt get (never arguments or results); - for stdout')
    .option('--session-key-file <file>', 'with --http: keys that seal legacy session ids, one base64 key a line (openssl rand -base64 32); the same file on every replica')
    .option('--health <[host:]port>', "with --http: also answer /healthz and /readyz on a listener of their own, off the calls' event loop, so a busy replica passes its balancer's check (host default 127.0.0.1)")
    .addHelpText(
      'after',
      examples(
        'mcp-statechart serve',
        'claude mcp add statechart -- mcp-statechart serve',
        'mcp-statechart serve --otel --metrics 9464',
        'mcp-statechart serve --http 8808',
        'mcp-statechart serve --http 0.0.0.0:8808 --gateway gateway.json --session-key-file keys.txt --audit audit.log',
      ),
    )
    .action(async (options: ServeFlags, command: Command) => {
      const [{ runServe }, { runServeHttp }, { withTelemetry }] = await Promise.all([
        import('./commands/serve.js'),
        import('./commands/serve-http.js'),
        import('./otel.js'),
      ]);
      // --timeout: the default for every server whose entry sets none; a time-out names the flag a person can change.
      const defaults =
        options.timeout === undefined
          ? { requestTimeoutSource: `the ${DEFAULT_REQUEST_TIMEOUT_MS} ms default; serve --timeout or the server entry's "timeoutMs" sets another` }
          : { requestTimeoutMs: options.timeout, requestTimeoutSource: 'serve --timeout' };
      const { http } = options;
      if (http === undefined && (options.gateway ?? options.audit ?? options.sessionKeyFile ?? options.health) !== undefined) {
        throw new Error('--gateway, --audit, --session-key-file and --health go with serve --http');
      }
      process.exitCode = await withTelemetry({ ...options, serving: true }, (telemetry) => {
        // stdout carries the protocol: the address goes to stderr.
        if (telemetry?.metricsUrl) process.stderr.write(`mcp-statechart serve: metrics on ${telemetry.metricsUrl}\n`);
        return withInspector(options.inspect, false, (inspect) =>
          http === undefined
            ? runServe(globalOptions(command), { inspect, defaults }, { view: options.view, sampling: options.sampling })
            : runServeHttp(globalOptions(command), { ...options, http }, { inspect, defaults }),
        );
      });
      // Exits at once if nothing else is pending; otherwise after a second, whatever holds it (a handle
      // something left open must not keep a host waiting on a dead server). Armed only now, once the
      // telemetry's last export is done or given up (bounded): armed when serve stopped, it cut that
      // export off, and the line saying the collector never got it, after a second.
      setTimeout(() => process.exit(process.exitCode), 1_000).unref();
    });

  program
    .command('approve')
    .description('confirm servers on a terminal (each shown whole): one added or changed while serve runs starts only then; also approves project servers')
    .argument('<servers...>', 'server names')
    .addHelpText('after', examples('mcp-statechart approve notes'))
    .action(async (servers: string[], _options: object, command: Command) => {
      const { runApprove } = await import('./commands/approve.js');
      process.exitCode = await runApprove(globalOptions(command), servers);
    });

  program
    .command('login')
    .description('log in to an http/sse server that needs OAuth: opens the authorization page, stores the tokens (0600)')
    .argument('<server>', 'server name')
    .option('--no-browser', 'only print the authorization URL; do not open a browser')
    .addHelpText('after', examples('mcp-statechart login docs', 'mcp-statechart login docs --no-browser'))
    .action(async (server: string, options: { browser: boolean }, command: Command) => {
      const { runLogin } = await import('./commands/login.js');
      process.exitCode = await runLogin(globalOptions(command), server, options);
    });

  program
    .command('logout')
    .description("forget a server's stored OAuth tokens; a name that is not configured, or a stdio server, is refused (exit 1) as by login, unless a login is stored under it; refused (exit 1) while a login of that server runs")
    .argument('<server>', 'server name')
    .addHelpText('after', examples('mcp-statechart logout docs'))
    .action(async (server: string, _options: unknown, command: Command) => {
      const { runLogout } = await import('./commands/login.js');
      process.exitCode = await runLogout(globalOptions(command), server);
    });

  const scopeOption = () => new Option('-s, --scope <scope>', 'which file: user (~/.ai-zen/mcp.json) or project (.mcp.json)').choices(['user', 'project']);

  const add = program
    .command('add')
    .description("add a server to ~/.ai-zen/mcp.json (or the project's .mcp.json with --scope project; an entry you add there counts as approved by you)")
    .argument('<name>', 'server name')
    .argument('<command-or-url>', 'the command to run (stdio), or the http(s) URL to connect to')
    .argument('[args...]', "the server's own arguments, after --")
    .addOption(scopeOption().default('user'))
    .addOption(new Option('-t, --transport <transport>', 'stdio, http or sse (default: http for a URL, else stdio)').choices(['stdio', 'http', 'sse']))
    .option('-e, --env <KEY=VALUE>', 'an environment variable for a stdio server (repeatable); write ${VAR} to read it from your environment', collect, [])
    .option('-H, --header <"Name: value">', 'an HTTP header for an http/sse server (repeatable)', collect, [])
    .option('--force', 'replace an entry of the same name in that file', false)
    .option('--json', 'print one JSON object for scripts: {ok, name, scope, file} or {ok: false, code, error}', false)
    .addHelpText(
      'after',
      "\nExamples:\n  mcp-statechart add memory -- npx -y @modelcontextprotocol/server-memory\n  mcp-statechart add --scope project -e API_KEY='${API_KEY}' search -- uvx search-server --port 0\n  mcp-statechart add -H 'Authorization: Bearer ${TOKEN}' docs https://example.com/mcp",
    )
    .action(async (name: string, target: string, args: string[], options: import('./commands/add.js').AddFlags, command: Command) => {
      const { runAdd } = await import('./commands/add.js');
      process.exitCode = await runAdd(name, target, args, { ...options, project: globalOptions(command).project });
    });
  pointServerOptionsPastDoubleDash(add);

  program
    .command('add-json')
    .description('add a server from its JSON definition, as an mcpServers entry is written')
    .argument('<name>', 'server name')
    .argument('<json>', 'the entry as one JSON object')
    .addOption(scopeOption().default('user'))
    .option('--force', 'replace an entry of the same name in that file', false)
    .option('--json', 'print one JSON object for scripts: {ok, name, scope, file} or {ok: false, code, error}', false)
    .addHelpText('after', '\nExample:\n  mcp-statechart add-json weather \'{"command":"npx","args":["-y","weather-mcp"],"env":{"KEY":"${WEATHER_KEY}"}}\'')
    .action(async (name: string, json: string, options: { scope: 'user' | 'project'; force: boolean; json: boolean }, command: Command) => {
      const { runAddJson } = await import('./commands/add.js');
      process.exitCode = await runAddJson(name, json, { ...options, project: globalOptions(command).project });
    });

  program
    .command('get')
    .description('show a server as its file defines it (values of env and headers hidden) and whether it is in use')
    .argument('<name>', 'server name')
    .option('--json', 'print one JSON object for scripts: {ok, name, definitions} or {ok: false, code, error}', false)
    .option('--check', 'also connect it once and show its health: connected, needs login, failed and why (as servers --check)', false)
    .addOption(timeoutOption('with --check: give it this long to connect, in milliseconds (default: 30000)'))
    .addHelpText('after', examples('mcp-statechart get memory', 'mcp-statechart get memory --check'))
    .hook('preAction', goWith('--check', '--timeout'))
    .action(async (name: string, options: import('./commands/get.js').GetOptions, command: Command) => {
      const { runGet } = await import('./commands/get.js');
      process.exitCode = await runGet(globalOptions(command), name, options);
    });

  program
    .command('remove')
    .description('remove a server from the user or the project file (the rest of the file stays as it is)')
    .argument('<name>', 'server name')
    .addOption(scopeOption())
    .option('--json', 'print one JSON object for scripts: {ok, name, scope, file} or {ok: false, code, error}', false)
    .addHelpText('after', '\nExample:\n  mcp-statechart remove memory --scope user')
    .action(async (name: string, options: { scope?: 'user' | 'project'; json: boolean }, command: Command) => {
      const { runRemove } = await import('./commands/remove.js');
      process.exitCode = await runRemove(name, { ...options, project: globalOptions(command).project });
    });

  const approvals = program
    .command('approvals')
    .description('list the approved project servers, and whether each definition is still the one approved')
    .option('--json', 'print one JSON object for scripts: {ok, approvals}, {ok, revoked} or {ok: false, code, error}', false)
    .addHelpText('after', '\nExamples:\n  mcp-statechart approvals\n  mcp-statechart approvals revoke my-server')
    // A word after it that is not `revoke` reaches the action, to be named as an unknown command
    // (or `help`): commander would call it "too many arguments for 'approvals'".
    .allowExcessArguments()
    .action(async (options: { json: boolean }, command: Command) => {
      const [word, helpFor] = command.args;
      // Commander's own `help` subcommand is not added to a command that has an action.
      if (word === 'help') (command.commands.find((sub) => sub.name() === helpFor) ?? command).help();
      if (word !== undefined) command.error(`error: unknown command 'approvals ${word}'\n(Did you mean approvals revoke?)`, { code: 'commander.unknownCommand' });
      const { runApprovalsList } = await import('./commands/approvals.js');
      process.exitCode = await runApprovalsList(options);
    });
  approvals
    .command('revoke')
    .description('take back the approval of a project server (it is asked about again before it runs)')
    .argument('[name]', 'server name')
    .option('--all', 'revoke every approval', false)
    .addHelpText('after', '\nExamples:\n  mcp-statechart approvals revoke my-server\n  mcp-statechart approvals revoke --all --json')
    .action(async (name: string | undefined, options: { all: boolean }, command: Command) => {
      const { runApprovalsRevoke } = await import('./commands/approvals.js');
      // `--json` belongs to `approvals`, which parses it wherever it is written.
      const { json } = command.optsWithGlobals() as { json: boolean };
      process.exitCode = await runApprovalsRevoke(name, { ...options, json });
    });

  program
    .command('tasks')
    .description(
      'list the tasks that tool calls to 2026-07-28 servers became and that no process saw to their end (a process stopped or was killed mid-call), as ~/.ai-zen/mcp-tasks.json records them: server, tool, when the call began, oldest first. Task ids are not shown: a server may use one as the bearer of its task',
    )
    .option('--prune', 'first remove the tasks an older version recorded (marked "older version"), which only a process of that version can resume: prune once none runs', false)
    .option('--json', 'print one JSON object for scripts: {ok, file, pruned?, tasks: [{server, tool, startedAt, olderVersion?}]} or {ok: false, code, error}', false)
    .addHelpText('after', '\nExamples:\n  mcp-statechart tasks\n  mcp-statechart tasks --prune\n  mcp-statechart tasks --json')
    .action(async (options: { json: boolean; prune: boolean }) => {
      const { runTasksList } = await import('./commands/tasks.js');
      process.exitCode = await runTasksList(options);
    });

  program
    .command('import')
    .description("copy the servers another client is configured with (its usual files on this platform, or a file you name) into ~/.ai-zen/mcp.json; shows them and asks first")
    .requiredOption('--from <client-or-file>', 'required, for a file too (--from ./team-mcp.json): claude-desktop, claude-code (user, local and project scopes, found from a subfolder too), vscode (its "servers", ${input:…} become ${VARS}), cursor, or a path to an mcp.json (Cline\'s cline_mcp_settings.json: its "timeout" seconds become "timeoutMs")')
    .addOption(scopeOption().default('user'))
    .option('-y, --yes', 'import without asking (for scripts)', false)
    .option('--force', 'replace servers of the same name already in the target file', false)
    .option('--rename <old=new>', 'import a server under another name (repeatable): --rename "My Notes=my-notes"', collect, [])
    .option('--json', 'print one JSON object for scripts: {ok, file, added, skipped} or {ok: false, code, error}', false)
    .addHelpText('after', '\nExamples:\n  mcp-statechart import --from claude-desktop\n  mcp-statechart import --from vscode --scope project --yes\n  mcp-statechart import --from ./team-mcp.json --force')
    .action(async (options: { from: string; scope: 'user' | 'project'; yes: boolean; force: boolean; json: boolean; rename: string[] }, command: Command) => {
      const { runImport } = await import('./commands/import.js');
      process.exitCode = await runImport({ ...options, project: globalOptions(command).project });
    });

  program
    .command('install')
    .description('add a server from an MCP Registry (the official one unless --registry or "mcpRegistry.url" in ~/.ai-zen/settings.json says otherwise): shows what would run or where it connects, and asks')
    .argument('<name[@version]>', 'the registry name, e.g. io.github.owner/server, optionally @1.2.3 (default: the latest version)')
    .option('--registry <url>', 'the registry to read (an MCP Registry API v0.1)')
    .option('--name <server>', "the name to give it here (default: the part after the registry name's /)")
    .addOption(scopeOption().default('user'))
    .option('--remote', 'use the hosted (http/sse) endpoint when the server has both a package and a remote', false)
    .option('-y, --yes', 'install without asking (for scripts); what is installed still goes to stderr', false)
    .option('--force', 'replace an entry of the same name in that file', false)
    .option('--json', 'print one JSON object for scripts: {ok, name, registryName, version, file, entry} or {ok: false, code, error}', false)
    .addOption(timeoutOption('give the registry this long to answer, in milliseconds').default(30_000))
    .addHelpText('after', '\nExamples:\n  mcp-statechart install io.github.owner/weather\n  mcp-statechart install io.github.owner/weather@1.2.0 --scope project --yes\n  mcp-statechart install com.example/docs --registry https://registry.example.com --remote')
    .action(async (wanted: string, options: Omit<import('./commands/install.js').InstallOptions, 'project'>, command: Command) => {
      const { runInstall } = await import('./commands/install.js');
      process.exitCode = await runInstall(wanted, { ...options, project: globalOptions(command).project });
    });

  program
    .command('search')
    .description("find tools by what they do in the servers' indexed manifests (no server is started), or servers in an MCP Registry (--registry)")
    .argument('<words...>', 'what to look for')
    .option('--server <name>', 'only the tools of this server')
    .option('--registry', 'search an MCP Registry instead (the official one unless --registry-url or "mcpRegistry.url" in ~/.ai-zen/settings.json)')
    .option('--registry-url <url>', 'the registry to search (an MCP Registry API v0.1)')
    .option('--limit <n>', 'show at most this many (tools: 5 by default, 20 at most; registry servers: 20 by default)', positiveWholeNumber('Give a positive whole number, e.g. --limit 50'))
    .option('--json', 'print one JSON object for scripts: {ok, query, tools, servers, notes} ({ok, registry, servers, complete} with --registry) or {ok: false, code, error}', false)
    .addOption(timeoutOption('give the registry this long to answer (all pages), in milliseconds').default(30_000))
    .addHelpText('after', examples('mcp-statechart search read a file', 'mcp-statechart search --server memory relations', 'mcp-statechart search --registry weather', 'mcp-statechart search --registry github --registry-url https://registry.example.com --json'))
    .hook('preAction', refuseIndexOptionsInRegistryMode)
    .action(
      async (
        words: string[],
        options: { server?: string; registry?: boolean; registryUrl?: string; limit?: number; json: boolean; timeout: number },
        command: Command,
      ) => {
        if (options.registry || options.registryUrl !== undefined) {
          const { runRegistrySearch } = await import('./commands/registry-search.js');
          process.exitCode = await runRegistrySearch(words, { ...options, limit: options.limit ?? 20 });
        } else {
          const { runIndexSearch } = await import('./commands/search-index.js');
          process.exitCode = await runIndexSearch(globalOptions(command), words, { ...options, limit: options.limit ?? 5 });
        }
      },
    );

  refuseHelpForUnknownCommands(program);
  program.addHelpText('after', globalOptionReadersHelp(governedOptions(program).map((option) => option.long!)));
  program.hook('preAction', refuseUnreadGlobalOptions);
  program.hook('preAction', refuseRelativeHome);
  program.hook('preAction', async (_program, action) => {
    const [{ routeSdkWarnings }, { cliLogger }] = await Promise.all([import('../sdk-warnings.js'), import('./logger.js')]);
    routeSdkWarnings(cliLogger(globalOptions(action).verbose));
  });
  return program;
}

/**
 * `add memory npx -y pkg` reads `-y` as an option of `add`, and commander's "unknown option '-y'"
 * reads as if `-y` were wrong: an option after the name and the command is the server's own, so
 * the error shows where the `--` goes.
 */
function pointServerOptionsPastDoubleDash(add: Command): void {
  const parseOptions = add.parseOptions.bind(add);
  add.parseOptions = (args) => {
    const parsed = parseOptions(args);
    const [flag] = parsed.unknown;
    // The program read the words before the first option it did not know (`add memory npx`), and handed `add` the rest.
    const readBefore = add.parent?.args.slice(1, add.parent.args.length - args.length) ?? [];
    const operands = [...readBefore, ...parsed.operands];
    if (flag?.startsWith('-') && operands.length >= 2) {
      const [name, ...command] = operands.map(commandWord);
      add.error(`error: unknown option '${flag}'\n(Is it the server's own? Its command and arguments go after --: mcp-statechart add ${name} -- ${command.join(' ')} ${commandWord(flag)} …)`, { code: 'commander.unknownOption' });
    }
    return parsed;
  };
}

/**
 * Words other tools use for a command we have under another name: commander's closest-spelling
 * suggestion cannot find `servers` from `list`, so these name the command meant.
 */
const COMMANDS_BY_OTHER_NAMES: Readonly<Record<string, string>> = {
  list: 'servers',
  ls: 'servers',
  status: 'servers',
  rm: 'remove',
  delete: 'remove',
  uninstall: 'remove',
  show: 'get',
  start: 'serve',
  check: 'doctor',
  tools: 'load',
  tool: 'load',
  resources: 'load',
};

/** `list` and `ls` with a server after them ask for its tools, not for the servers. */
const LISTS_OF_ONE_SERVER = new Set(['list', 'ls']);

/** Said with the suggestion: nothing in the name `load` tells a newcomer it lists tools. */
const SUGGESTION_NOTES: Readonly<Record<string, string>> = {
  load: " `load <server>` lists a server's tools and resources",
};

/**
 * Commander answers `--help` before it looks for the command, so `list --help` (and `help list`)
 * printed the top-level help as if `list` were a command. Without the help flag, or the `help`
 * in front, commander says the command is unknown and suggests the closest one, exit code 1;
 * a word another tool uses for one of ours (`list`, `rm`) is told which, the same way.
 */
function refuseHelpForUnknownCommands(program: Command): void {
  const parseOptions = program.parseOptions.bind(program);
  const isCommand = (name: string) => program.commands.some((command) => command.name() === name || command.aliases().includes(name));
  program.parseOptions = (args) => {
    const parsed = parseOptions(args);
    const named = parsed.operands[0] === 'help' ? parsed.operands.slice(1) : parsed.operands;
    if (named.length === 0 || isCommand(named[0]!)) return parsed;
    const word = named[0]!;
    const meant = LISTS_OF_ONE_SERVER.has(word) && named.length > 1 ? 'load' : Object.hasOwn(COMMANDS_BY_OTHER_NAMES, word) ? COMMANDS_BY_OTHER_NAMES[word] : undefined;
    if (meant !== undefined) program.error(`error: unknown command '${word}'\n(Did you mean ${meant}?${SUGGESTION_NOTES[meant] ?? ''})`, { code: 'commander.unknownCommand' });
    return { operands: named, unknown: parsed.unknown.filter((arg) => arg !== '--help' && arg !== '-h') };
  };
}
