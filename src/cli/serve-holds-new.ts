import { commandWord } from '../../machines/control-characters.js';

/**
 * What `add` and `import` say after writing servers into the user file: a running serve holds a
 * server that appears there until a person confirms it (serve-new-servers.ts), while one started
 * later runs it. Not for the project file, whose servers those commands approve as they write.
 */
export function runningServeHoldsText(names: readonly string[]): string {
  const them = names.length === 1 ? 'it' : 'them';
  return `A running \`mcp-statechart serve\` keeps ${them} off until you confirm ${them} on a terminal with \`mcp-statechart approve ${names.map(commandWord).join(' ')}\`; a serve started from now on runs ${them} as ${names.length === 1 ? 'it is' : 'they are'}.`;
}
