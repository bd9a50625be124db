/** What eager exposure offers of huge-manifest-server.mjs's `configure` tool (`--in-schema`): its input schema's long texts cut. */
import { expect } from 'vitest';
import { MAX_DIRECT_DESCRIPTION_CHARACTERS, MAX_DIRECT_SCHEMA_TEXT_CHARACTERS } from '../../src/text-limits.js';

const CUT_NOTE = / ?\[description cut: ([\d,]+) of [\d,]+ characters shown\]$/;

interface Offered {
  properties: Record<string, { description?: string; properties?: Record<string, { title?: string }> }>;
}

export function expectSchemaTextsCut(offered: unknown): void {
  const { properties } = offered as Offered;
  const texts = [...Object.values(properties).map((property) => property.description), properties.nested?.properties?.y?.title].filter((text) => text !== undefined);
  expect(texts).toHaveLength(12);
  // The megabyte in the first property is cut to the per-text limit, saying how much was shown.
  expect(properties.x?.description).toMatch(/^property A+ \[description cut: [\d,]+ of [\d,]+ characters shown\]$/);
  for (const text of texts) expect(text.length).toBeLessThanOrEqual(MAX_DIRECT_DESCRIPTION_CHARACTERS);
  // Together they keep at most the schema's limit of their own text: once it is spent, a text is only the note.
  const kept = texts.reduce((sum, text) => sum + text.replace(CUT_NOTE, '').length, 0);
  expect(kept).toBeLessThanOrEqual(MAX_DIRECT_SCHEMA_TEXT_CHARACTERS);
  expect(properties.nested?.properties?.y?.title).toMatch(/^ ?\[description cut: 0 of [\d,]+ characters shown\]$/);
  // Each text is whole or says it was cut, so the model knows there was more; the first parts fit whole.
  const whole = texts.filter((text) => /^part \d B{3000}$/.test(text));
  for (const text of texts) expect(whole.includes(text) || CUT_NOTE.test(text)).toBe(true);
  expect(whole.length).toBeGreaterThan(0);
}
