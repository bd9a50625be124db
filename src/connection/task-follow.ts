import { quoted } from '../../machines/control-characters.js';
import { taskIdFormProblem } from '../../machines/errors.js';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/core';
import { ProtocolError, type SdkError, type CallToolResult, type CreateMessageResultWithTools, type InputRequest, type InputResponse, type Progress } from '@modelcontextprotocol/client';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../machines/options.js';
import { Deadline } from './deadline.js';
import { QuietLimit } from './quiet-limit.js';
import { isTaskTimeLimit, taskTimeLimitError } from './task-time-limit.js';
import { CANCEL_TIMEOUT_MS, MIN_TASK_POLL_INTERVAL_MS, pause } from './tool-task.js';
import { isUnreachable } from './errors.js';
import { AnswerStreamCut, isRecord, type TaskWire } from './task-wire.js';
import type { TaskRecorder } from './task-journal.js';
import { MAX_INPUT_REQUESTS_PER_ROUND, tooManyInputs } from './input-request-limit.js';

/** The longest wait between two polls, whatever `pollIntervalMs` the server asks for: the call's time limit still ends a task that stays working. */
export const MAX_TASK_POLL_INTERVAL_MS = 30_000;

/** The wait between two polls when the server names no `pollIntervalMs`. */
const DEFAULT_TASK_POLL_INTERVAL_MS = 1_000;

/** At most this many `tasks/update` answers for one task before the call fails (a server that asks for ever). */
export const MAX_TASK_INPUT_ROUNDS = 8;

/** Answers one input request of a task with the host's handlers (src/connection/host-handlers.ts). */
export type AnswerInput = (request: InputRequest, signal: AbortSignal) => Promise<InputResponse | CreateMessageResultWithTools>;

export interface TaskCall {
  wire: TaskWire;
  server: string;
  tool: string;
  /** When the call began: its time limit counts from there, not from the task's arrival. */
  startedAt: number;
  /** `maxTotalTimeout`, else `timeout`, of the call: the limit of the whole call, task included. */
  limitMs?: number;
  /** The call's limit without progress (quiet-limit.ts): no new status or message for this long ends it. */
  quietMs?: number;
  signal?: AbortSignal;
  /** Each status the task reports, as progress: a count that grows by one per poll, and the status message. */
  onProgress?: (progress: Progress) => void;
  /** Undefined when the host has no handlers: a task that asks for input then fails clearly. */
  answerInput?: AnswerInput;
  /** Where the task is recorded while it is followed, so a later process can resume it. */
  journal?: TaskRecorder;
  /**
   * The connection's close: a task it interrupts is left running on the server, not cancelled,
   * and stays in the journal for `resumeTask`.
   */
  closed?: AbortSignal;
  /** Told once the call's answer is a task, before it is followed. */
  onTask?: () => void;
  /**
   * Given, after a caller's abort, the wait for the `tasks/cancel` answer and the journal entry it
   * clears: the connection's close waits for it (CANCEL_TIMEOUT_MS at most), as closing at once
   * cut the cancel off and left a cancelled task listed as unfinished.
   */
  settling?: (work: Promise<unknown>) => void;
}

/**
 * The call's result; when the server answered with a task instead, that task followed to its end.
 * Costs a call that is not a task one `catch`.
 */
export function followIfTask(call: Promise<CallToolResult>, wire: TaskWire, task: Omit<TaskCall, 'wire' | 'startedAt'>): Promise<CallToolResult> {
  const startedAt = Date.now();
  return call.catch((error: unknown) => {
    const first = wire.takeTask(error);
    if (!first) throw error;
    task.onTask?.();
    return followUntilClosed(first, { ...task, wire, startedAt });
  });
}

/** Follows a task an earlier call became (one the journal kept from another process), known only by its id. */
export function resumeTask(taskId: string, wire: TaskWire, task: Omit<TaskCall, 'wire' | 'startedAt'>): Promise<CallToolResult> {
  return followUntilClosed({ taskId }, { ...task, wire, startedAt: Date.now() });
}

function followUntilClosed(first: Record<string, unknown>, call: TaskCall): Promise<CallToolResult> {
  // The caller's signal may be the session actor's CancelSignal, which AbortSignal.any refuses.
  const ended = new AbortController();
  const sources = [call.signal, call.closed];
  const end = () => ended.abort(sources.find((source) => source?.aborted)?.reason);
  for (const source of sources) {
    if (source?.aborted) end();
    source?.addEventListener('abort', end, { once: true });
  }
  return followTask(first, { ...call, signal: ended.signal }).finally(() => {
    for (const source of sources) source?.removeEventListener('abort', end);
  });
}

/**
 * Follows a task (SEP-2663, the 2026-07-28 Tasks extension) to its end, so the caller of
 * `callTool` gets the final result as if the server had answered at once: `tasks/get` at the
 * server's `pollIntervalMs` (between MIN_TASK_POLL_INTERVAL_MS and MAX_TASK_POLL_INTERVAL_MS),
 * input requests answered by the host's handlers and sent with `tasks/update` (each key once),
 * `completed` → its result, `failed` → its JSON-RPC error, `cancelled` → an error. When the call's
 * time is up or its caller aborts, the task is sent `tasks/cancel` and the call rejects at once.
 */
export async function followTask(first: Record<string, unknown>, call: TaskCall): Promise<CallToolResult> {
  const limitMs = call.limitMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const leftMs = Math.max(0, limitMs - (Date.now() - call.startedAt));
  const taskId = typeof first.taskId === 'string' ? first.taskId : undefined;
  if (taskId === undefined) throw new Error(`MCP server ${quoted(call.server)} answered tool ${quoted(call.tool)} with a task without a taskId`);
  // Checked before the id goes into a request (the Mcp-Name header over HTTP) or the journal.
  const unusable = taskIdFormProblem(taskId);
  if (unusable !== undefined) {
    throw new Error(
      `the server answered with a task that cannot be followed: ${unusable}. That is the server's fault; the task was not asked about, cancelled or recorded, so it may still run there`,
    );
  }
  let latest = first;
  /** Set while `tasks/get` reaches no server, cleared by its next answer. */
  const reach: Reach = {};
  /** The error of the call's time limit, once it is up (an abort of the caller's is not one). */
  let timedOut: SdkError | undefined;
  const deadline = new Deadline(
    leftMs,
    () =>
      (timedOut = taskTimeLimitError(
        reach.unreachable
          ? `the task for tool ${quoted(call.tool)} was last ${String(latest.status)}, and its server could not be reached to ask again before the call's time limit (${limitMs} ms): ${reach.unreachable.message}`
          : quiet.ranOutAfterMs === undefined
            ? `the task for tool ${quoted(call.tool)} was still ${String(latest.status)} after ${limitMs} ms (the call's time limit)`
            : `the task for tool ${quoted(call.tool)} was still ${String(latest.status)} after ${quiet.ranOutAfterMs} ms without progress (no new status or message)`,
        !reach.unreachable,
      )),
    call.signal,
  );
  const quiet = new QuietLimit(call.quietMs, () => deadline.expire());
  quiet.heard(latest);
  /** Whether the server got the `tasks/cancel` sent (an error answer too: it knows the task); unset while none was sent. */
  let cancelReached: Promise<boolean> | undefined;
  /** Set when a cancel was sent and did not reach the server: the task may still run there. */
  let mayStillRun = false;
  const cancel = () => {
    if (call.closed?.aborted) return;
    cancelReached = call.wire.request('tasks/cancel', { taskId }, AbortSignal.timeout(CANCEL_TIMEOUT_MS)).then(
      () => true,
      (error: unknown) => error instanceof ProtocolError,
    );
  };
  deadline.signal.addEventListener('abort', cancel, { once: true });
  const pushed = new PushedStatus(call.wire, taskId, deadline.signal);
  const recorded = { server: call.server, taskId };
  void call.journal?.begun({ ...recorded, tool: call.tool, startedAt: new Date(call.startedAt).toISOString() });
  try {
    const answered = new Set<string>();
    let rounds = 0;
    for (let polls = 1; ; polls++) {
      const { status } = latest;
      if (status === 'completed') return CallToolResultSchema.parse(latest.result);
      if (status === 'failed') throw taskError(latest.error, call.tool);
      if (status === 'cancelled') throw new Error(`the task for tool ${quoted(call.tool)} was cancelled by the server${statusNote(latest)}`);
      if (status === 'input_required' && isRecord(latest.inputRequests)) {
        const fresh = Object.entries(latest.inputRequests).filter(([key]) => !answered.has(key));
        if (fresh.length > 0) {
          if (fresh.length > MAX_INPUT_REQUESTS_PER_ROUND) throw new Error(`${tooManyInputs(fresh.length)}; the task was cancelled (tasks/cancel)`);
          if (++rounds > MAX_TASK_INPUT_ROUNDS) {
            throw new Error(`the task for tool ${quoted(call.tool)} asked for input more than ${MAX_TASK_INPUT_ROUNDS} times, so it was cancelled (tasks/cancel)`);
          }
          const inputResponses = Object.fromEntries(
            await Promise.all(fresh.map(async ([key, request]) => [key, await answer(call, request, deadline.signal)] as const)),
          );
          for (const [key] of fresh) answered.add(key);
          await update(call.wire, taskId, inputResponses, deadline.signal);
        }
      }
      // A task known only by its id (resumed) is asked at once.
      latest = (await pushed.orPause(latest.status === undefined ? 0 : pollInterval(latest))) ?? (await poll(call.wire, taskId, latest, reach, deadline.signal));
      quiet.heard(latest);
      call.onProgress?.({ progress: polls, message: typeof latest.statusMessage === 'string' ? latest.statusMessage : String(latest.status) });
    }
  } catch (error) {
    // A failure of ours (a handler, too many rounds) leaves the task running on the server: it is told.
    if (!deadline.signal.aborted && !isTerminal(latest.status)) cancel();
    // The cancel's answer (CANCEL_TIMEOUT_MS at most) is waited for, so the error can say whether
    // the task was stopped; a caller's abort (or a close) rejects at once, its entry settled below.
    if (cancelReached && !call.signal?.aborted) mayStillRun = !(await cancelReached);
    if (timedOut && deadline.signal.reason === timedOut) throw timeLimitError(timedOut, mayStillRun);
    throw deadline.signal.aborted ? deadline.signal.reason : error;
  } finally {
    // A task left by a closed connection, or whose cancel did not reach its server, may still run
    // there: its entry stays, for a resume.
    if (cancelReached && call.signal?.aborted) call.settling?.(cancelReached.then((reached) => (reached ? call.journal?.ended(recorded) : undefined)));
    else if (!call.closed?.aborted && !mayStillRun) void call.journal?.ended(recorded);
    pushed.stop();
    quiet.stop();
    deadline.signal.removeEventListener('abort', cancel);
    deadline.dispose();
  }
}

/** The time limit's error, saying whether the `tasks/cancel` sent then reached the server. */
function timeLimitError(timedOut: SdkError, mayStillRun: boolean): SdkError {
  const outcome = mayStillRun
    ? '; tasks/cancel did not reach the server either, so the task may still run there: it stays recorded (unfinishedTasks(), `mcp-statechart tasks`) to be resumed or cancelled later'
    : ', so it was cancelled (tasks/cancel)';
  return taskTimeLimitError(`${timedOut.message}${outcome}`, isTaskTimeLimit(timedOut));
}

/**
 * The task's state from `tasks/get`. A task id is a durable handle (SEP-2663): over HTTP, a
 * server that cannot be reached (restarting, a network break) is asked again at the poll
 * interval until it answers or the call's time is up, and polling goes on where it stopped.
 * A poll whose answer stream was cut (the replica answering it gone) is asked again at once, on
 * a fresh stream, once: a poll changes nothing. Cut again, it waits the interval like the rest.
 */
async function poll(wire: TaskWire, taskId: string, latest: Record<string, unknown>, reach: Reach, signal: AbortSignal): Promise<Record<string, unknown>> {
  let askedAgain = false;
  for (;;) {
    try {
      const answer = await wire.request('tasks/get', { taskId }, signal);
      reach.unreachable = undefined;
      return answer;
    } catch (error) {
      const cut = error instanceof AnswerStreamCut;
      if (!(cut || isUnreachable(error)) || signal.aborted) throw error;
      reach.unreachable = error as Error;
      if (cut && !askedAgain) askedAgain = true;
      else await pause(pollInterval(latest), signal);
    }
  }
}

/**
 * Sends the host's answers to a task's input requests. One whose answer was cut (the request may
 * or may not have arrived) is sent again at once, once: SEP-2663 has a server ignore responses
 * "mapped to a key that is not currently outstanding for the task — including [...] keys that
 * have already been answered", so answers that did arrive are not taken twice.
 */
async function update(wire: TaskWire, taskId: string, inputResponses: Record<string, unknown>, signal: AbortSignal): Promise<void> {
  const send = () => wire.request('tasks/update', { taskId, inputResponses }, signal);
  await send().catch((error: unknown) => {
    if (!(error instanceof AnswerStreamCut) || signal.aborted) throw error;
    return send();
  });
}

interface Reach {
  unreachable?: Error;
}

/**
 * The task's status notifications (`notifications/tasks`, SEP-2663), asked for with a
 * `subscriptions/listen` naming its id, so a change is heard at once instead of at the next poll.
 * Polling stays the default: a server that refuses the stream, drops it or never notifies is
 * polled as before, and the stream ends with the task.
 */
class PushedStatus {
  private readonly ended = new AbortController();
  private readonly unwatch: () => void;
  private readonly signal: AbortSignal;
  private heard?: Record<string, unknown>;
  private wake?: () => void;

  constructor(wire: TaskWire, taskId: string, signal: AbortSignal) {
    this.signal = signal;
    this.unwatch = wire.watchTask(taskId, (task) => {
      this.heard = task;
      this.wake?.();
    });
    const listen = AbortSignal.any([signal, this.ended.signal]);
    wire.request('subscriptions/listen', { notifications: { taskIds: [taskId] } }, listen).catch(() => {});
  }

  /** The state a notification brought during a wait of `ms` (or before it), else undefined once the wait is over. */
  async orPause(ms: number): Promise<Record<string, unknown> | undefined> {
    if (!this.heard) {
      const woken = new AbortController();
      this.wake = () => woken.abort();
      await pause(ms, AbortSignal.any([this.signal, woken.signal])).catch((error: unknown) => {
        if (!woken.signal.aborted) throw error;
      });
      this.wake = undefined;
    }
    const heard = this.heard;
    this.heard = undefined;
    return heard;
  }

  stop(): void {
    this.unwatch();
    this.ended.abort();
  }
}

function pollInterval(task: Record<string, unknown>): number {
  const asked = typeof task.pollIntervalMs === 'number' && Number.isFinite(task.pollIntervalMs) ? task.pollIntervalMs : DEFAULT_TASK_POLL_INTERVAL_MS;
  return Math.min(MAX_TASK_POLL_INTERVAL_MS, Math.max(MIN_TASK_POLL_INTERVAL_MS, asked));
}

function isTerminal(status: unknown): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

function statusNote(task: Record<string, unknown>): string {
  return typeof task.statusMessage === 'string' ? `: ${task.statusMessage}` : '';
}

/** A `failed` task's JSON-RPC error, as the SDK would have raised it had the server answered with it. */
function taskError(error: unknown, tool: string): Error {
  if (isRecord(error) && typeof error.code === 'number' && typeof error.message === 'string') {
    return ProtocolError.fromError(error.code, `the task for tool ${quoted(tool)} failed: ${error.message}`, error.data);
  }
  return new Error(`the task for tool ${quoted(tool)} failed without saying why`);
}

/** The input requests the host can answer: elicitation, sampling and roots, checked as the SDK checks a request of the server. */
const INPUT_REQUEST_SCHEMAS = [ElicitRequestSchema, CreateMessageRequestSchema, ListRootsRequestSchema];

function answer(call: TaskCall, request: unknown, signal: AbortSignal): ReturnType<AnswerInput> {
  const method = isRecord(request) ? String(request.method) : 'an unknown request';
  if (!call.answerInput) {
    return Promise.reject(new Error(`the task for tool ${quoted(call.tool)} asked for ${method}, and this client has no handler for it`));
  }
  for (const schema of INPUT_REQUEST_SCHEMAS) {
    const parsed = schema.safeParse(request);
    if (parsed.success) return call.answerInput(parsed.data, signal);
  }
  return Promise.reject(new Error(`the task for tool ${quoted(call.tool)} asked for ${method}, which is not an input request this client answers`));
}
