import { describe, expect, it } from 'vitest';
import { diffManifests, EMPTY_MANIFEST } from '../machines/options.js';
import type { McpServerManifest } from '../machines/types.js';

const tool = (name: string, description = name) => ({ name, description, inputSchema: { type: 'object' as const } });

describe('what mcp.manifestChanged reports', () => {
  it('names the tools, resources, templates and prompts that were added, removed or changed', () => {
    const before: McpServerManifest = {
      ...EMPTY_MANIFEST,
      tools: [tool('kept'), tool('edited'), tool('dropped')],
      resources: [{ uri: 'r://old', name: 'old' }],
    };
    const after: McpServerManifest = {
      ...EMPTY_MANIFEST,
      tools: [tool('kept'), tool('edited', 'now does something else'), tool('fresh')],
      resourceTemplates: [{ uriTemplate: 'r://items/{id}', name: 'items' }],
      prompts: [{ name: 'greet' }],
    };
    expect(diffManifests(before, after)).toEqual({
      added: ['tool:fresh', 'resourceTemplate:r://items/{id}', 'prompt:greet'],
      removed: ['tool:dropped', 'resource:r://old'],
      changed: ['tool:edited'],
    });
  });

  it('reports nothing when nothing changed, and everything as added against no manifest', () => {
    const manifest: McpServerManifest = { ...EMPTY_MANIFEST, tools: [tool('a')] };
    expect(diffManifests(manifest, structuredClone(manifest))).toEqual({ added: [], removed: [], changed: [] });
    expect(diffManifests(undefined, manifest)).toEqual({ added: ['tool:a'], removed: [], changed: [] });
  });

  it('finds each change of a list that changes at every read, each listing diffed as the next one\'s before', () => {
    const listings: McpServerManifest[] = [0, 1, 2, 3].map((version) => ({
      ...EMPTY_MANIFEST,
      // One tool changes at every read, another only at the third; the prompts are carried over as they were.
      tools: [tool('counter', `version ${version}`), tool('steady'), tool('late', version >= 2 ? 'changed late' : 'late')],
    }));
    const carried = [{ name: 'greet' }];
    for (const listing of listings) listing.prompts = carried;
    const changes = listings.slice(1).map((listing, index) => diffManifests(listings[index], listing).changed);
    expect(changes).toEqual([['tool:counter'], ['tool:counter', 'tool:late'], ['tool:counter']]);
  });

  it('finds a change at the bottom of a schema nested 100,000 levels deep, and a reordering of keys', () => {
    const deep = (bottom: string): Record<string, never> => JSON.parse(`${'{"x":'.repeat(100_000)}"${bottom}"${'}'.repeat(100_000)}`);
    const nested = (bottom: string): McpServerManifest => ({ ...EMPTY_MANIFEST, tools: [{ name: 'deep', inputSchema: { type: 'object', properties: deep(bottom) } }] });
    expect(diffManifests(nested('a'), nested('a')).changed).toEqual([]);
    expect(diffManifests(nested('a'), nested('b')).changed).toEqual(['tool:deep']);
    const reordered = { ...EMPTY_MANIFEST, tools: [{ inputSchema: { type: 'object' as const }, description: 'edited', name: 'edited' }] };
    expect(diffManifests({ ...EMPTY_MANIFEST, tools: [tool('edited')] }, reordered).changed).toEqual(['tool:edited']);
  });
});
