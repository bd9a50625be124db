import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpServerError, requestAbandonedError } from '../../machines/errors.js';
import type { McpServerManifest, McpSession } from '../../machines/types.js';
import type { Logger } from '../logger.js';
import { terminateGroup } from '../transports/process-group.js';
import type { StderrTail } from '../transports/stderr-tail.js';
import { redact, redactError } from '../redact.js';
import { listKind, type ListKind } from './manifest.js';

interface SessionListeners {
  onLost: (error: Error, sessionExpired: boolean) => void;
  onManifest: (manifest: McpServerManifest) => void;
}

export interface SessionParts {
  server: string;
  client: Client;
  transport: Transport;
  logger: Logger;
  stderr?: StderrTail;
  /** Values never to pass on: see redact.ts. */
  secrets: readonly string[];
  /** Called once the close has finished. */
  onClosed?: () => void;
  /** The process group to end on close (stdio servers: see transports/stdio.ts). */
  processGroup?: () => number | undefined;
}

/**
 * A live connection. It owns its client, transport and process group: `close()` ends all of
 * them, once. Until the chart subscribes with `watch`, a lost connection is remembered and
 * reported at subscription.
 */
export class Session implements McpSession {
  readonly client: Client;
  manifest: McpServerManifest = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
  private readonly parts: SessionParts;
  private listeners?: SessionListeners;
  private lostWith?: { error: Error; sessionExpired: boolean };
  private closing?: Promise<void>;
  private refreshing: Promise<unknown> = Promise.resolve();

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.client = parts.client;
    parts.client.onclose = () => this.lose(new Error('the server closed the connection'), false);
    parts.client.onerror = (error) => {
      if (this.closing) return;
      parts.logger.warn(`MCP server "${parts.server}": ${redact(error.message, parts.secrets)} (the connection stays up)`);
    };
  }

  get isClosed(): boolean {
    return this.closing !== undefined;
  }

  /** After `initialize`: install list_changed handlers for what the server declares. */
  followListChanges(): void {
    const capabilities = this.client.getServerCapabilities() ?? {};
    const follow = (kinds: ListKind[]) => () => this.refresh(kinds);
    if (capabilities.tools?.listChanged) {
      this.client.setNotificationHandler(ToolListChangedNotificationSchema, follow(['tools']));
    }
    if (capabilities.resources?.listChanged) {
      this.client.setNotificationHandler(ResourceListChangedNotificationSchema, follow(['resources', 'resourceTemplates']));
    }
    if (capabilities.prompts?.listChanged) {
      this.client.setNotificationHandler(PromptListChangedNotificationSchema, follow(['prompts']));
    }
  }

  /** Re-reads the given lists (every page), one refresh at a time, and reports the new manifest. */
  private refresh(kinds: ListKind[]): Promise<void> {
    const next = this.refreshing.then(async () => {
      if (this.closing) return;
      try {
        const lists = await Promise.all(
          kinds.map((kind) => listKind(this.parts.server, this.client, kind, {}, this.parts.logger)),
        );
        const manifest = { ...this.manifest };
        kinds.forEach((kind, index) => {
          (manifest[kind] as unknown[]) = lists[index]!;
        });
        this.manifest = manifest;
        this.listeners?.onManifest(manifest);
      } catch (error) {
        if (!this.closing) {
          this.parts.logger.warn(
            `MCP server "${this.parts.server}": refreshing ${kinds.join(', ')} after list_changed failed: ${redact((error as Error).message, this.parts.secrets)}`,
          );
        }
      }
    });
    this.refreshing = next;
    return next;
  }

  private lose(raw: Error, sessionExpired: boolean): void {
    if (this.closing || this.lostWith) return;
    const error = redactError(raw, this.parts.secrets);
    this.lostWith = { error, sessionExpired };
    this.listeners?.onLost(error, sessionExpired);
  }

  watch(listeners: SessionListeners): () => void {
    this.listeners = listeners;
    if (this.lostWith) listeners.onLost(this.lostWith.error, this.lostWith.sessionExpired);
    return () => {
      if (this.listeners === listeners) this.listeners = undefined;
    };
  }

  stderrTail(): string {
    return this.parts.stderr?.text() ?? '';
  }

  async callTool(tool: string, args: Record<string, unknown> | undefined, options: { timeoutMs?: number } = {}) {
    try {
      return (await this.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: options.timeoutMs,
      })) as Awaited<ReturnType<McpSession['callTool']>>;
    } catch (error) {
      throw this.requestFailure(`calling tool "${tool}"`, error);
    }
  }

  async readResource(uri: string) {
    try {
      return await this.client.readResource({ uri });
    } catch (error) {
      throw this.requestFailure(`reading resource "${uri}"`, error);
    }
  }

  private requestFailure(what: string, error: unknown): Error {
    const { server } = this.parts;
    const clean = redactError(error instanceof Error ? error : new Error(String(error)), this.parts.secrets);
    if (this.connectionIsGone(error)) {
      this.lose(clean, this.sessionExpired(error));
      return requestAbandonedError(server, 'lost', clean);
    }
    return new McpServerError('REQUEST_FAILED', server, `MCP server "${server}" failed ${what}: ${clean.message}`, {
      cause: clean,
    });
  }

  /**
   * Errors that mean no further request can succeed on this connection: the transport closed,
   * the HTTP server forgot the session (404 to a request carrying its id, SDK #1708), or it no
   * longer answers at all.
   */
  private connectionIsGone(error: unknown): boolean {
    if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
    if (this.sessionExpired(error)) return true;
    if (!(error instanceof Error)) return false;
    return error.message === 'Not connected' || (error instanceof TypeError && error.message === 'fetch failed');
  }

  private sessionExpired(error: unknown): boolean {
    return error instanceof StreamableHTTPError && error.code === 404 && this.parts.transport.sessionId !== undefined;
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.listeners = undefined;
    const group = this.parts.processGroup?.();
    try {
      await this.client.close();
    } catch (error) {
      this.parts.logger.debug(`closing MCP server "${this.parts.server}": ${(error as Error).message}`);
    }
    if (group !== undefined) await terminateGroup(group);
    this.parts.onClosed?.();
  }
}
