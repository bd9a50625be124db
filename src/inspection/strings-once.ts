/**
 * Every snapshot of a server's actor carries its manifest, so a viewer was sent the same large
 * strings (instructions and descriptions of megabytes) in each of a connection's ~200 events:
 * ~10 MB of traffic per MB of instructions. Each viewer now gets a large string once; later
 * events carry a reference that the relay's page resolves (`stringRestorer`) before handing the
 * event to the inspector, which so receives every event whole, as before.
 */

/** Shorter strings are sent as they are: a reference would save little. */
export const LARGE_STRING = 16 * 1024;
/** What one viewer's table may hold; past it, both sides start a new table (the page is told by `reset`). */
const MAX_REMEMBERED_BYTES = 64 * 1024 * 1024;

/**
 * One viewer's side: which large strings it holds, by id. `marker` names the reference objects
 * (random per relay: no server's data can spell one).
 */
export class StringsOnce {
  private readonly ids = new Map<string, number>();
  private bytes = 0;
  private nextId = 0;
  private readonly marker: string;

  constructor(marker: string) {
    this.marker = marker;
  }

  /** The message as this viewer receives it: each large string it already holds replaced by its id. */
  encode(message: string): string {
    if (message.length < LARGE_STRING) return message;
    let event: unknown;
    try {
      event = JSON.parse(message);
    } catch {
      return message;
    }
    const { marker } = this;
    const strings = this;
    return JSON.stringify(event, function (this: Record<string, unknown>, _key, value: unknown) {
      // The text of a definition just made is not replaced again.
      if (typeof value !== 'string' || value.length < LARGE_STRING || marker in this) return value;
      return strings.reference(value);
    });
  }

  private reference(text: string): Record<string, unknown> {
    const known = this.ids.get(text);
    if (known !== undefined) return { [this.marker]: known };
    const reset = this.bytes + text.length > MAX_REMEMBERED_BYTES;
    if (reset) {
      this.ids.clear();
      this.bytes = 0;
    }
    const id = this.nextId++;
    this.ids.set(text, id);
    this.bytes += text.length;
    return { [this.marker]: id, text, ...(reset && { reset: true }) };
  }
}

/**
 * The page's side: a parser that puts back the strings `StringsOnce` sent once. Its source is
 * written into the relay's page as it is, so it uses nothing from outside itself.
 */
export function stringRestorer(marker: string): (message: string) => unknown {
  const strings = new Map<unknown, unknown>();
  // JSON.parse revives in document order: a definition comes before the references to it.
  return (message) =>
    JSON.parse(message, (_key, value: unknown) => {
      if (value === null || typeof value !== 'object' || !(marker in value)) return value;
      const reference = value as Record<string, unknown>;
      if (!('text' in reference)) return strings.get(reference[marker]);
      if (reference.reset === true) strings.clear();
      strings.set(reference[marker], reference.text);
      return reference.text;
    });
}
