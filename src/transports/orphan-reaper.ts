/**
 * Ends the servers' process groups when this process is SIGKILLed (the out-of-memory killer, a
 * host that force-kills `serve` after its own timeout): nothing of ours runs then, and Node cannot
 * ask the kernel to signal children when their parent dies (there is no PR_SET_PDEATHSIG). A
 * server that exits when its stdin closes goes by itself; one that does not would run for ever,
 * with whatever it started.
 *
 * A tiny `/bin/sh` reads the tracked groups from a pipe, one line each: `+<pgid>` when a group
 * is tracked, `-<pgid>` when it is let go. The kernel closes the pipe however we end, so at the
 * end of its input the reaper SIGTERMs the groups still listed, SIGKILLs what is left a second
 * later, and exits. A clean stop has let every group go first, so then it signals nothing.
 *
 * It never signals an unrelated group: a pgid is not handed out again while any process of that
 * group lives (the kernel skips numbers still in use as a process group id), and a group is let
 * go (`terminateGroup`) as soon as it is seen gone, within its 20 ms poll. A listed group that
 * died in that window is harmless unless, within it, the kernel went through every process id
 * (`pid_max`, 32768 and more) and made the same number a new group's leader.
 *
 * Its own session and process group (`detached`) keep the terminal's Ctrl-C and a signal sent to
 * our group from reaching it before we have stopped. Its list is bounded by our live groups.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { GROUPS_SUPPORTED, watchGroups } from './process-group.js';

/** POSIX sh (dash, bash, zsh as sh): `kill -s SIG -- -pgid` is the form all of them take. */
const REAPER_SCRIPT = `
groups=' '
while IFS= read -r line; do
  pgid=\${line#?}
  case $pgid in ''|*[!0-9]*) continue ;; esac
  case $line in
    +*) case $groups in *" $pgid "*) ;; *) groups="$groups$pgid " ;; esac ;;
    -*) case $groups in *" $pgid "*) groups="\${groups%% $pgid *} \${groups#* $pgid }" ;; esac ;;
  esac
done
[ "$groups" = ' ' ] && exit 0
for pgid in $groups; do kill -s TERM -- "-$pgid" 2>/dev/null; done
sleep 1
for pgid in $groups; do kill -s KILL -- "-$pgid" 2>/dev/null; done
exit 0
`;

/** The reaper itself, reading `+<pgid>` and `-<pgid>` lines on its stdin. */
export function spawnReaper(): ChildProcess {
  return spawn('/bin/sh', ['-c', REAPER_SCRIPT], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
    // No mount held busy, no secret of ours in its environment; `sleep` is found on PATH.
    cwd: '/',
    env: { PATH: '/usr/bin:/bin' },
  });
}

export interface OrphanReaper {
  /** Stops mirroring groups and lets the reaper exit (it signals the groups still listed). */
  close(): void;
}

const NO_REAPER: OrphanReaper = { close: () => {} };

/**
 * Starts the reaper and mirrors the tracked groups to it. Only `serve` does this: a short CLI
 * command and an application embedding the manager have no reaper. Where groups are not
 * supported (Windows) or `/bin/sh` cannot be started, there is none, and nothing else changes.
 */
export function startOrphanReaper(): OrphanReaper {
  if (!GROUPS_SUPPORTED) return NO_REAPER;
  let reaper: ChildProcess;
  try {
    reaper = spawnReaper();
  } catch {
    return NO_REAPER;
  }
  const input = reaper.stdin;
  if (!input) return NO_REAPER;
  let open = true;
  const stop = () => {
    if (!open) return;
    open = false;
    watchGroups(undefined);
    input.end();
  };
  // A reaper that could not start, or was killed, leaves us as we were without one.
  reaper.once('error', stop);
  reaper.once('exit', stop);
  input.on('error', stop);
  // Neither the reaper nor its pipe keeps this process alive.
  reaper.unref();
  if ('unref' in input && typeof input.unref === 'function') input.unref();
  const send = (line: string) => {
    if (open) input.write(`${line}\n`);
  };
  watchGroups({ tracked: (pgid) => send(`+${pgid}`), released: (pgid) => send(`-${pgid}`) });
  return { close: stop };
}
