/** Caps on text that comes from servers, so one answer can never flood a log, an error or the model. */
import { sliceWithinBudget } from '../machines/grapheme-cut.js';

// The cut lives beside `quoted()`, which cuts names with it; the modules here take it from this one.
export { sliceWithinBudget };

/** Error texts (JSON-RPC error messages, HTTP error bodies) are cut to this many characters. */
export const MAX_ERROR_TEXT = 2_000;

/**
 * Characters kept of what a server is for, its instructions or a configured description: enough
 * (the reference servers' instructions run to 1,600), while one server cannot fill the loader
 * tools' definitions or make every search re-read pages.
 */
export const MAX_PURPOSE_CHARACTERS = 4_096;

/**
 * Characters kept of a server tool's description offered directly (eager exposure), as written
 * for the model: escapes counted, the note saying it was cut included. As much as a server's
 * purpose gets; one tool's megabyte of text would otherwise sit in every request's context.
 */
export const MAX_DIRECT_DESCRIPTION_CHARACTERS = 4_096;

/**
 * Characters kept of all the descriptions and titles inside one tool's input schema offered
 * directly, as written (each also within MAX_DIRECT_DESCRIPTION_CHARACTERS): four tool descriptions'
 * worth, room for dozens of parameters described at length. Once spent, a further text is only the
 * note saying it was cut.
 */
export const MAX_DIRECT_SCHEMA_TEXT_CHARACTERS = 16_384;

/**
 * The longest server name a config file may give: the most the loader tools take in a `server`
 * argument, so every configured server can be loaded by the model.
 */
export const MAX_SERVER_NAME_CHARACTERS = 1_024;

/**
 * A configured description as the model gets it: its first MAX_PURPOSE_CHARACTERS characters.
 * Control characters stay (search's data keeps them); each text that shows it escapes them.
 */
export function descriptionWithinCap(description: string): string {
  return sliceWithinBudget(description, MAX_PURPOSE_CHARACTERS);
}

/** A server's error text within `max` characters, saying how much was left out. */
export function capErrorText(text: string, max = MAX_ERROR_TEXT): string {
  if (text.length <= max) return text;
  return `${sliceWithinBudget(text, max)}… [${text.length - max} more characters not shown]`;
}
