import { quoted } from '../../../machines/control-characters.js';
import { approveServers } from '../../config/project-trust.js';
import { describeServerDefinition } from '../approval-prompt.js';
import { formatFailure, missingServerExplanation } from '../failure-text.js';
import { cliLogger } from '../logger.js';
import { discoverFor, isInteractive, type GlobalOptions } from '../options.js';
import { askOnTerminal } from '../terminal-question.js';
import { writeError } from '../terminal-text.js';

/**
 * `approve <server...>`: a person confirms servers on a terminal, each shown whole as its file
 * defines it now; the approval (a keyed fingerprint) lets a server added or changed while
 * `serve` runs start, and a project server run under `--project-servers ask`. Refused without
 * a terminal: a script, or a model, must not be able to confirm.
 */
export async function runApprove(options: GlobalOptions, names: string[]): Promise<number> {
  // "Waiting for approval: run approve" is what this command answers; the named servers' other problems are said.
  const discovery = await discoverFor(names, options, cliLogger(options.verbose), false, (problem, { servers }) => problem.server === undefined || servers[problem.server]?.trust !== 'awaiting approval');
  // A project entry waiting behind the user's server of the same name is asked about too.
  const definitionsOf = (name: string) => [
    ...(discovery.shadowed ?? []).filter((server) => server.name === name),
    ...(Object.hasOwn(discovery.servers, name) ? [discovery.servers[name]!] : []),
  ];
  // A name nothing defines is said to be so first: no terminal would make it approvable.
  const unknown = names.filter((name) => definitionsOf(name).length === 0);
  for (const name of unknown) process.stderr.write(`${formatFailure(missingServerExplanation(name, discovery))}\n`);
  const known = names.filter((name) => !unknown.includes(name));
  if (known.length === 0) return 1;
  if (!isInteractive()) {
    writeError('mcp-statechart approve asks a person: run it on a terminal. Nothing was approved.');
    return 1;
  }
  for (const name of known) {
    for (const server of definitionsOf(name)) {
      const answer = await askOnTerminal(`${describeServerDefinition(server)}\nAllow it? [y/N] `);
      if (!/^y(es)?$/i.test(answer.trim())) {
        writeError(`${quoted(name)} from ${server.source} was not approved.`);
        continue;
      }
      await approveServers({}, [server]);
      writeError(`Approved ${quoted(name)} as defined now in ${server.source}; an edit of its definition needs approval again.`);
    }
  }
  return unknown.length > 0 ? 1 : 0;
}
