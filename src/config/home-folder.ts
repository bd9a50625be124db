/**
 * The home folder the default files are under (`~/.ai-zen/…`). An empty or relative HOME would
 * put them in the working folder, where a cloned repository's `.ai-zen/mcp.json` would count as
 * the user's own file and its servers would start without an approval: refused instead, saying
 * what to do. (HOME unset is fine: Node then reads the passwd entry.)
 */
import os from 'node:os';
import { isAbsolute } from 'node:path';

export function homeFolder(): string {
  const home = os.homedir();
  if (isAbsolute(home)) return home;
  const what = home === '' ? 'empty' : `the relative path ${JSON.stringify(home)}`;
  throw new Error(`HOME is ${what}, so ~/.ai-zen would be a folder of the working folder, and a cloned project's files there would count as your own: set HOME to the absolute path of your home folder`);
}
