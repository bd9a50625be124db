/** Whether no process of this machine has this pid: signal 0 tests it (EPERM: it lives, under another user). */
export function processGone(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
