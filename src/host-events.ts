import type { McpHostEmitted } from './connection/host-handlers.js';
import type { Logger } from './logger.js';

type Listener = (event: McpHostEmitted) => void;

/**
 * Where `mcp.log` and `mcp.resourceUpdated` go. They come from the SDK client's notification
 * handlers, outside any chart, so the manager emits them here rather than through the registry
 * actor; `manager.on()` serves both. A listener that throws is logged and the others still run.
 */
export class HostEvents {
  private readonly listeners = new Map<McpHostEmitted['type'], Set<Listener>>();
  private readonly logger: Logger;

  constructor(logger: Logger) {
    this.logger = logger;
  }

  on(type: McpHostEmitted['type'], listener: Listener): () => void {
    const set = this.listeners.get(type) ?? new Set();
    set.add(listener);
    this.listeners.set(type, set);
    return () => set.delete(listener);
  }

  emit(event: McpHostEmitted): void {
    for (const listener of this.listeners.get(event.type) ?? []) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn(`a ${event.type} listener threw: ${(error as Error).message}`);
      }
    }
  }
}
