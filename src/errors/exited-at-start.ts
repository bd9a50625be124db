/**
 * A leaf module: the connection raises this error, and the loader tools and the CLI word it for
 * the model and for a person, so it lives outside all three folders.
 */

/**
 * A stdio server's process ended before the connect finished and before anything here closed it:
 * mostly its command fails at start (a wrong argument, a missing variable, a crash on load), and
 * its stderr says why; or a signal ended it (see `endedFromOutside`).
 */
export class ExitedAtStartError extends Error {
  override name = 'ExitedAtStartError';
  constructor(
    readonly exitCode: number | null,
    readonly signal: string | null,
    options?: { cause?: unknown },
  ) {
    super(signal ? `its process was ended by ${signal} while connecting` : `its process exited at start with code ${exitCode}`, options);
  }
}

/** True for an `ExitedAtStartError`, also once redaction has copied it (`redactError` keeps the name). */
export function isExitedAtStart(error: unknown): boolean {
  return error instanceof Error && error.name === 'ExitedAtStartError';
}

/**
 * Signals another process sends: a kill by hand, the system out of memory, a supervisor. The
 * command started; trying again may help. A crash of the command itself (SIGSEGV, SIGABRT) is not one.
 */
const SIGNALS_FROM_OUTSIDE: ReadonlySet<string> = new Set(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP']);

/** True for an `ExitedAtStartError` whose process a signal from outside ended, rather than its command failing. */
export function endedFromOutside(error: unknown): boolean {
  if (!isExitedAtStart(error)) return false;
  const signal = (error as { signal?: unknown }).signal;
  return typeof signal === 'string' && SIGNALS_FROM_OUTSIDE.has(signal);
}

/** What a machine can run short of so that a command that is fine dies at start. */
export type MachineShortage = 'threads' | 'memory' | 'files';

/** Each shortage as a person or a model is told it: what ran short, and which limit to raise. */
export const SHORTAGE_WORDS: Readonly<Record<MachineShortage, { short: string; raise: string }>> = {
  threads: { short: 'threads or processes', raise: "the process limit (ulimit -u, or a container's pids limit)" },
  memory: { short: 'memory', raise: "the memory limit (a container's), or free some memory" },
  files: { short: 'open files', raise: 'the open-file limit (ulimit -n)' },
};

/**
 * How runtimes say at start that the machine refused them (Node's `uv_thread_create` assertion,
 * glibc's `pthread_create` and EAGAIN text, Python's and Java's thread errors, Go's runtime), in
 * the order they are looked for: a thread refused is EAGAIN, which also reads "Resource
 * temporarily unavailable".
 */
const SHORTAGE_TEXT: ReadonlyArray<readonly [MachineShortage, RegExp]> = [
  ['threads', /uv_thread_create|pthread_create|Resource temporarily unavailable|\bEAGAIN\b|can't start new thread|unable to create (?:new )?native thread|failed to create new OS thread/i],
  ['memory', /Cannot allocate memory|\bENOMEM\b|std::bad_alloc|\bMemoryError\b|runtime: out of memory/],
  ['files', /Too many open files|\bEMFILE\b|\bENFILE\b/i],
];

/**
 * The shortage the stderr of a process that ended at start names, if it names one: then the
 * machine's limits, not the entry, are what to change.
 */
export function shortageAtStart(error: unknown, stderr: string | undefined): MachineShortage | undefined {
  if (!isExitedAtStart(error) || !stderr) return undefined;
  return SHORTAGE_TEXT.find(([, text]) => text.test(stderr))?.[0];
}

/** True for an `ExitedAtStartError` whose process aborted (SIGABRT): a crash, or a runtime refused a thread or memory. */
export function abortedAtStart(error: unknown): boolean {
  return isExitedAtStart(error) && (error as { signal?: unknown }).signal === 'SIGABRT';
}
