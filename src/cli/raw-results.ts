/**
 * `call` and `read` print a result whole, as the server sent it, while the loader tools keep
 * their checks, approval and failure wording (and fit their own text to the model's budget).
 * The loader tools get this view of the manager, which keeps the last raw answer.
 */
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { McpConnectionManager } from '../manager.js';
import type { LoaderToolsManager } from '../tools/index.js';

export type RawResult = { kind: 'tool'; result: CallToolResult } | { kind: 'resource'; result: ReadResourceResult };

export interface RawResultKeeper {
  manager: LoaderToolsManager;
  /** The answer of the last tool call or resource read that succeeded, if any. */
  last(): RawResult | undefined;
}

export function keepRawResults(manager: McpConnectionManager): RawResultKeeper {
  let last: RawResult | undefined;
  const view: LoaderToolsManager = {
    configure: (...args) => manager.configure(...args),
    connect: (...args) => manager.connect(...args),
    disconnect: (name) => manager.disconnect(name),
    callTool: (...args) =>
      manager.callTool(...args).then((result) => {
        last = { kind: 'tool', result };
        return result;
      }),
    readResource: (...args) =>
      manager.readResource(...args).then((result) => {
        last = { kind: 'resource', result };
        return result;
      }),
    getState: (name) => manager.getState(name),
    getManifest: (name) => manager.getManifest(name),
    getError: (name) => manager.getError(name),
    serverStatus: (name) => manager.serverStatus(name),
    touch: (name) => manager.touch(name),
    on: (type, handler) => manager.on(type, handler),
    getClient: (name) => manager.getClient(name),
    rereadTools: (name) => manager.rereadTools(name),
    eras: manager.eras,
  };
  return { manager: view, last: () => last };
}
