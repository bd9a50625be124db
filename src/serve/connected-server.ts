import { Server, type Implementation, type ServerCapabilities, type Transport } from '@modelcontextprotocol/server';

/**
 * A server instance that says which transport it was connected to, once its handlers are set: on
 * stdio `serveStdio` connects each instance to a channel of its own and hands it the host's
 * messages one at a time from a single queue, so a hook on that channel (not on the host's stdio
 * transport, read by the queue) sees each request in the async context of its own handler; over
 * HTTP each request gets an instance and a transport of its own.
 */
export class ConnectedServer extends Server {
  constructor(info: Implementation, capabilities: ServerCapabilities, private readonly connected: (transport: Transport) => void) {
    super(info, { capabilities });
  }

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    this.connected(transport);
  }
}
