import type { CreateMessageRequest, ElicitRequest } from '@modelcontextprotocol/client';
import { redact, redactStrings } from '../redact.js';

/**
 * A server's sampling and elicitation requests as the host's handlers get them: a careless server
 * may quote a value of its entry (the key it was given) in what the host shows a person or a
 * model, so each text shown is `[redacted]` in it, as in the server's log messages. What the
 * answer must match (a field's name, an option's `const`, a default, a URL to open) stays as sent.
 */

type SamplingParams = CreateMessageRequest['params'];
type ElicitationParams = ElicitRequest['params'];
type SamplingContent = SamplingParams['messages'][number]['content'];

/** The content kinds that carry text shown: a text block, and a tool result's own content. */
function shownContent<T extends SamplingContent>(content: T, secrets: readonly string[]): T {
  const blocks = Array.isArray(content) ? content : [content];
  const clean = blocks.map((block) => {
    if (block.type === 'text') return { ...block, text: redact(block.text, secrets) };
    if (block.type === 'tool_result') return { ...block, content: redactStrings(block.content, secrets) };
    return block;
  });
  return (Array.isArray(content) ? clean : clean[0]) as T;
}

export function samplingShown(params: SamplingParams, secrets: readonly string[]): SamplingParams {
  if (secrets.length === 0) return params;
  const messages = params.messages.map((message) => ({ ...message, content: shownContent(message.content, secrets) }));
  return { ...params, messages, ...(params.systemPrompt === undefined ? {} : { systemPrompt: redact(params.systemPrompt, secrets) }) };
}

/** The words a form shows for a field: its title and description, and the titles or names of its options. */
const SHOWN_FIELD_TEXT = ['title', 'description', 'enumNames'] as const;

function shownField(field: object, secrets: readonly string[]): Record<string, unknown> {
  const record: Record<string, unknown> = { ...field };
  for (const key of SHOWN_FIELD_TEXT) if (key in record) record[key] = redactStrings(record[key], secrets);
  for (const key of ['oneOf', 'anyOf']) {
    const options = record[key];
    if (Array.isArray(options)) record[key] = options.map((option: unknown) => (typeof option === 'object' && option !== null ? shownField(option, secrets) : option));
  }
  const items = record.items;
  if (typeof items === 'object' && items !== null) record.items = shownField(items, secrets);
  return record;
}

export function elicitationShown(params: ElicitationParams, secrets: readonly string[]): ElicitationParams {
  if (secrets.length === 0) return params;
  const message = redact(params.message, secrets);
  if (params.mode === 'url') return { ...params, message };
  const { properties } = params.requestedSchema;
  // The same shape: only strings are replaced.
  const shown = Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, shownField(field, secrets)])) as typeof properties;
  return { ...params, message, requestedSchema: { ...params.requestedSchema, properties: shown } };
}
