/**
 * The README's demo transcript: where it sits in README.md, how a real run's output is made
 * portable (no checkout path), and its shape — what must agree between the README and a run,
 * leaving out what differs run to run (timings, the port, the killed process's id, and how the
 * servers' events interleave under load).
 */

/** The fenced block after this sentence in README.md is the transcript. */
const BLOCK_START = 'Real output:\n\n```text\n';
const BLOCK_END = '\n```\n';

function blockBounds(readme: string): { start: number; end: number } {
  const found = readme.indexOf(BLOCK_START);
  if (found < 0) throw new Error(`README.md has no "${BLOCK_START.split('\n')[0]}" block for the demo transcript`);
  const start = found + BLOCK_START.length;
  const end = readme.indexOf(BLOCK_END, start);
  if (end < 0) throw new Error('the demo transcript block in README.md is not closed');
  return { start, end };
}

export function readmeTranscript(readme: string): string {
  const { start, end } = blockBounds(readme);
  return readme.slice(start, end);
}

export function withReadmeTranscript(readme: string, transcript: string): string {
  const { start, end } = blockBounds(readme);
  return `${readme.slice(0, start)}${transcript.trimEnd()}${readme.slice(end)}`;
}

/** The demo's stdout as the README shows it: the checkout's path as `<package>`. */
export function portableTranscript(stdout: string, packageRoot: string): string {
  return stdout.split(packageRoot).join('<package>').trimEnd();
}

/** A line the demo stamps with its elapsed time: `  +0.093s  [notes] disconnected → connecting`. */
const TIMED_LINE = /^\s*\+\d+\.\d+s {2}(.*)$/;

export interface DemoShape {
  /** Every line without a time stamp, in order (the total time left out). */
  lines: string[];
  /** The stamped lines of each server in order (`demo` for the others), with the port and process id left out. */
  events: Record<string, string[]>;
}

export function demoShape(transcript: string): DemoShape {
  const shape: DemoShape = { lines: [], events: {} };
  for (const line of transcript.trimEnd().split('\n')) {
    const timed = TIMED_LINE.exec(line);
    if (!timed) {
      shape.lines.push(line.replace(/^Done in \d+(\.\d+)? s\./, 'Done in … s.'));
      continue;
    }
    const event = timed[1]!.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>').replace(/kill -9 \d+/, 'kill -9 <pid>');
    const server = /^\[([^\]]+)\]/.exec(event)?.[1] ?? 'demo';
    (shape.events[server] ??= []).push(event);
  }
  return shape;
}
