/** One line of the audit log (audit-log.ts) as the gateway records it; completion-bursts.ts adds up several. */
export type AuditOutcome = 'ok' | 'tool_error' | `refused:${string}` | `failed:${string}`;

export interface AuditEntry {
  identity: string;
  server: string;
  /** What was done: a tool called, a resource read, a prompt got, a prompt argument or template variable completed. */
  kind: 'tool' | 'resource' | 'prompt' | 'completion';
  /** The tool's name, the resource's URI, the prompt's name; of a completion, its prompt's name or its template. */
  name: string;
  outcome: AuditOutcome;
  durationMs: number;
  traceId?: string;
  /** When it started. Default: now. */
  time?: Date;
}
