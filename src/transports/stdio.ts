import { quoted } from '../../machines/control-characters.js';
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import spawn from 'cross-spawn';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { npmCacheEnvironment } from './npm-cache-environment.js';
import { deserializeMessage, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../machines/types.js';
import { ConfigInvalidError } from '../errors/config-invalid.js';
import { HeldStderr } from './held-stderr.js';
import { LineBuffer } from './line-buffer.js';
import { GROUPS_SUPPORTED, killTree, resolveCommand, terminateGroup, trackGroup } from './process-group.js';

/** How long a server gets to exit by itself once its stdin is closed, and again after SIGTERM (as the SDK waits). */
const EXIT_GRACE_MS = 2_000;

/** An exit code, or the signal that ended the process. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * How long a server whose stdout ended may take for its exit to be seen: one that exits closes
 * stdout a moment before, and its exit then ends the connection with how it exited. One still
 * running after this closed its stdout alone.
 */
const STDOUT_END_GRACE_MS = 250;

/** A server closed its stdout and went on running: it can never answer again, so the connection ends as if it had exited. */
export class StdoutClosedError extends Error {
  override name = 'StdoutClosedError';
  constructor(options?: { cause?: unknown }) {
    super('the server closed its stdout but went on running, so it can no longer answer; the client ended it (a stdio server keeps stdout open while it runs)', options);
  }
}

/**
 * A write to the server's stdin found the pipe closed (EPIPE): its process exited or is exiting,
 * and the connection is being lost ('close' follows). Reported once per process: every write
 * after the first fails the same way.
 */
export class StdinClosedError extends Error {
  override name = 'StdinClosedError';
  constructor(cause: Error) {
    super(`the server's stdin is closed (${cause.message}): its process exited or is exiting, so the connection is being lost`, { cause });
  }
}

/**
 * A connected server's process ended by itself: how (its exit code, or the signal that ended it),
 * which the lost connection says instead of "the server closed the connection".
 */
export class ProcessEndedError extends Error {
  override name = 'ProcessEndedError';
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  constructor({ code, signal }: ProcessExit) {
    super(signal ? `its process was ended by ${signal}` : `its process exited with code ${code}`);
    this.exitCode = code;
    this.signal = signal;
  }
}

/** What a process that is answering the era probe may write to stderr before it is kept: whole lines; the rest is dropped and counted (held-stderr.ts). */
export const PROBE_STDERR_HELD_BYTES = 64 * 1024;

/**
 * The SDK's stdio transport, rebuilt from the SDK's own pieces (`ReadBuffer`, `serializeMessage`,
 * `getDefaultEnvironment`, `cross-spawn`) for one difference: on Linux and macOS the server is
 * spawned `detached`, which makes it the leader of a new process group (the `setsid` system
 * call), so closing it can end every process it started, even those a shell or `npx` left
 * behind (SDK issue #2023). On Windows, where a group cannot be signalled, the process tree is
 * ended with `taskkill /T /F`. stderr is always piped, for the error tail.
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Asked before each line is parsed: true drops it unread. The log flood limit sets it
   * (src/connection/log-flood-limit.ts), so a flooding server's surplus costs no parse.
   */
  skipLine?: (line: string) => boolean;

  private child?: ChildProcess;
  private readonly readBuffer = new LineBuffer(STDIO_DEFAULT_MAX_BUFFER_SIZE);
  private readonly stderrStream = new PassThrough();
  private startedPid?: number;
  /** The one wait for the pipe to drain, while it is full. */
  private drained?: Promise<void>;
  /** Set by `probeNext()`: the stderr of the process answering the era probe, held until it is kept. */
  private probeStderr?: HeldStderr;
  /** Set by `keepProbedProcess()`: the next `start()` takes over the running process instead of starting one. */
  private takeOver = false;
  /**
   * The close under way. A connect that fails early is closed twice at once (the SDK closes its
   * client, then the session closes it): the second close waits for the same exit, so the stderr
   * tail is read only once the process has written all of it.
   */
  private closing?: Promise<void>;
  /** How the process ended, when it ended by itself (not closed by this transport). */
  private ownExit?: ProcessExit;
  /** Set when the process closed its stdout and ran on, so this transport ended it. */
  private stdoutClosedAlone = false;

  constructor(
    private readonly command: string,
    private readonly args: readonly string[],
    private readonly env: Record<string, string>,
    private readonly cwd?: string,
  ) {}

  /** Readable before `start()`, so the first lines a failing server writes are kept. */
  get stderr(): PassThrough {
    return this.stderrStream;
  }

  /** The pid the server was started with; on Linux and macOS also its process group id. Kept after it exits. */
  get pid(): number | undefined {
    return this.startedPid;
  }

  /**
   * How the process ended, when it ended by itself before anything closed it: a server whose
   * command fails at start. Set before `onclose` is called; cleared by `startAfresh()`.
   */
  get exitedByItself(): ProcessExit | undefined {
    return this.ownExit;
  }

  /** True when the process closed its stdout and ran on (this transport then ended it). Set before `onclose`; cleared by `startAfresh()`. */
  get closedItsStdout(): boolean {
    return this.stdoutClosedAlone;
  }

  /** True when `pid` leads a process group this transport can signal as a whole. */
  get grouped(): boolean {
    return GROUPS_SUPPORTED && this.startedPid !== undefined;
  }

  /**
   * The next process started answers the era probe first (src/connection/era-probe.ts). Its stderr
   * is held (whole lines, at most PROBE_STDERR_HELD_BYTES) until `keepProbedProcess()` passes it on; a process
   * ended after the probe leaves nothing in the session's stderr.
   */
  probeNext(): void {
    this.probeStderr = new HeldStderr(PROBE_STDERR_HELD_BYTES);
  }

  /**
   * The probed process stays as the session's: what it wrote to stderr so far is passed on, and
   * the next `start()` (the session client's connect) takes it over as it runs.
   */
  keepProbedProcess(): void {
    const child = this.child;
    if (!child) throw new Error('the server exited after it answered server/discover');
    if (this.probeStderr) this.probeStderr.passOn(child.stderr, this.stderrStream);
    else child.stderr?.pipe(this.stderrStream);
    this.probeStderr = undefined;
    this.takeOver = true;
  }

  /** The probed process has been ended: the next `start()` starts a new one. */
  startAfresh(): void {
    if (this.child) throw new Error('the probed process is still running');
    this.probeStderr = undefined;
    this.startedPid = undefined;
    this.ownExit = undefined;
    this.stdoutClosedAlone = false;
    this.readBuffer.clear();
  }

  async start(): Promise<void> {
    if (this.takeOver) {
      this.takeOver = false;
      if (!this.child) throw new Error('the server exited after it answered server/discover');
      return;
    }
    if (this.child || this.startedPid !== undefined) throw new Error('ProcessGroupStdioTransport already started');
    await new Promise<void>((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(this.command, [...this.args], {
          env: this.env,
          cwd: this.cwd,
          stdio: ['pipe', 'pipe', 'pipe'],
          shell: false,
          detached: GROUPS_SUPPORTED,
          windowsHide: true,
        });
      } catch (error) {
        // Some refusals (E2BIG) are thrown at once rather than emitted as 'error'.
        throw tooLargeToStart(error as Error) ?? error;
      }
      this.child = child;
      // Once per process: the end of stdout may report it before the process's own 'close'.
      let closeReported = false;
      const reportClose = () => {
        if (closeReported) return;
        closeReported = true;
        this.onclose?.();
      };
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => {
        this.startedPid = child.pid;
        if (GROUPS_SUPPORTED && child.pid !== undefined) trackGroup(child.pid);
        resolve();
      });
      child.on('exit', () => {
        // 'close' waits for every holder of the pipes: a process the server started and left
        // behind would hold a connect (the era probe, initialize) until its timeout, after the
        // server itself is gone. The rest of its group is ended now, so 'close' follows at once,
        // after stdout has been read to its end. (Not on Windows: a tree without its root cannot be found.)
        if (this.child === child && GROUPS_SUPPORTED && child.pid !== undefined) void terminateGroup(child.pid);
      });
      child.on('close', (code, signal) => {
        // `endChild` lets go of the child before it ends it: still held, it ended by itself. One
        // that never started (EMFILE, EAGAIN) closes with the negated errno as its "code": its
        // 'error' says why, an exit code would not.
        if (this.child === child && this.startedPid !== undefined) this.ownExit = { code, signal };
        this.child = undefined;
        reportClose();
      });
      let stdinClosedTold = false;
      child.stdin?.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') return this.onerror?.(error);
        if (stdinClosedTold) return;
        stdinClosedTold = true;
        this.onerror?.(new StdinClosedError(error));
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        // Closing (an oversized message, or the client's close): what the pipe still holds is not read.
        if (this.child !== child) return;
        try {
          this.readBuffer.append(chunk);
          this.deliverMessages();
        } catch (error) {
          this.onerror?.(error as Error);
          void this.close();
        }
      });
      child.stdout?.on('end', () => this.stdoutEnded(child, reportClose));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      if (this.probeStderr) child.stderr?.on('data', this.probeStderr.hold);
      else child.stderr?.pipe(this.stderrStream);
    });
  }

  /**
   * Without this, a server that closed its stdout but runs on would stay "connected" and every
   * call would wait for its timeout. Unless its exit is seen within STDOUT_END_GRACE_MS, the
   * connection ends now (the requests in flight fail as lost, saying why) and the process is ended.
   */
  private stdoutEnded(child: ChildProcess, reportClose: () => void): void {
    if (this.child !== child || child.exitCode !== null || child.signalCode !== null) return;
    const stillRunning = setTimeout(() => {
      if (this.child !== child) return;
      this.stdoutClosedAlone = true;
      this.onerror?.(new StdoutClosedError());
      // Lets go of the child at once, so a send from here on says "Not connected".
      void this.close();
      reportClose();
    }, STDOUT_END_GRACE_MS);
    child.once('exit', () => clearTimeout(stillRunning));
  }

  private deliverMessages(): void {
    for (let line = this.readBuffer.nextLine(); line !== null; line = this.readBuffer.nextLine()) {
      if (this.skipLine?.(line)) continue;
      try {
        this.onmessage?.(deserializeMessage(line));
      } catch (error) {
        // A line that is not JSON-RPC is reported and skipped; the connection keeps working. (The
        // v2 SDK's ReadBuffer skips non-JSON lines without a word; a person debugging wants one.)
        // The parser's own message quotes the line's first characters, and a careless server
        // prints its token there: a cut token escapes redaction, so no part of the line is shown.
        this.onerror?.(notAMessage(line, error));
      }
    }
  }

  /**
   * Resolves once the message is written, or, when the pipe is full, once it has drained. Every
   * write waiting meanwhile shares one wait (a listener per write would pile up: 1,000 calls in
   * flight, 1,000 'drain' listeners and Node's MaxListenersExceededWarning). A pipe that closes
   * before it drains fails the waiting writes instead of leaving them pending for ever.
   */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error('Not connected'));
    if (stdin.write(serializeMessage(message)) && !this.drained) return Promise.resolve();
    this.drained ??= new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        stdin.off('drain', onDrain);
        stdin.off('close', onClose);
        this.drained = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () => this.afterEnd(() => settle(new Error('Not connected')));
      stdin.on('drain', onDrain);
      stdin.on('close', onClose);
    });
    return this.drained;
  }

  /**
   * Runs `then` once the process has been seen to end (its 'close'), or STDOUT_END_GRACE_MS
   * later at most. A pipe that closed before it drained most often closed with the process, and
   * its 'close' can come first: failing the writes at once would fail a connect before
   * `exitedByItself` says how the process ended ("Not connected" instead of its exit code).
   */
  private afterEnd(then: () => void): void {
    const child = this.child;
    if (!child) return then();
    const done = () => {
      clearTimeout(notYet);
      child.off('close', done);
      then();
    };
    const notYet = setTimeout(done, STDOUT_END_GRACE_MS);
    child.once('close', done);
  }

  /**
   * Like the SDK: end stdin, give the server time to exit, then SIGTERM, then SIGKILL. On Windows
   * the whole tree is ended at once, since its members cannot be found once the server is gone.
   * The rest of a process group is ended by `terminateGroup`, after this.
   */
  close(): Promise<void> {
    this.closing ??= this.endChild().finally(() => (this.closing = undefined));
    return this.closing;
  }

  private async endChild(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) {
      const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const exitedWithin = (ms: number) => Promise.race([exited, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
      if (process.platform === 'win32' && child.pid !== undefined) {
        await killTree(child.pid);
      } else {
        try {
          child.stdin?.end();
        } catch {
          // already closed
        }
        await exitedWithin(EXIT_GRACE_MS);
        for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
          if (child.exitCode !== null || child.signalCode !== null) break;
          child.kill(signal);
          if (signal === 'SIGTERM') await exitedWithin(EXIT_GRACE_MS);
        }
      }
    }
    this.readBuffer.clear();
  }
}

/** The process group a transport's server leads, if this module launched it in one. */
export function processGroupOf(transport: object): (() => number | undefined) | undefined {
  if (!(transport instanceof ProcessGroupStdioTransport)) return undefined;
  return () => (transport.grouped ? transport.pid : undefined);
}

/**
 * A stdio transport for a config entry. The child gets only the SDK's default environment, npm's
 * cache settings (npm-cache-environment.ts) and the entry's `env`. A command that cannot be found
 * is an ENOENT before anything is spawned, so it is classified as a config error everywhere.
 */
export function createStdioTransport(server: string, config: McpServerConfig): ProcessGroupStdioTransport {
  if (typeof config.command !== 'string' || config.command.trim() === '') {
    throw new ConfigInvalidError(server, 'command', 'a stdio server needs a "command"');
  }
  // spawn reports a missing working folder as ENOENT of the command, which sends people looking for a program that is installed.
  if (config.cwd !== undefined && !isFolder(config.cwd)) {
    throw new ConfigInvalidError(server, 'cwd', `the working folder ${quoted(config.cwd)} does not exist or is not a folder`);
  }
  const env: Record<string, string> = { ...getDefaultEnvironment(), ...npmCacheEnvironment(config.env), ...config.env };
  const resolved = resolveCommand(config.command, env.PATH ?? env.Path, config.cwd, env.PATHEXT);
  if (!resolved) {
    throw Object.assign(
      new Error(`command ${quoted(config.command)} was not found or is not executable (looked in PATH and ${config.cwd ?? 'the working folder'})`),
      { code: 'ENOENT' },
    );
  }
  return new ProcessGroupStdioTransport(resolved, config.args ?? [], env, config.cwd);
}

/** `spawn E2BIG` in words: the same entry fails the same way every time, so it keeps its code and is a config error. */
function tooLargeToStart(error: Error): Error | undefined {
  if ((error as NodeJS.ErrnoException).code !== 'E2BIG') return undefined;
  return Object.assign(
    new Error(
      'the system refused to start it: its "args" and "env" are too large (E2BIG; on Linux one value may hold at most 128 KB, all of them together about 2 MB); ' +
        'shorten them, or pass large values in a file',
    ),
    { code: 'E2BIG' },
  );
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

function notAMessage(line: string, error: unknown): Error {
  const what = error instanceof SyntaxError ? 'is not JSON' : 'is JSON but not a JSON-RPC message';
  return new Error(
    `the server wrote a line to stdout that ${what} (${line.length} characters, not shown); it was skipped: ` +
      'only MCP messages belong on stdout, a server writes its logs to stderr',
  );
}
