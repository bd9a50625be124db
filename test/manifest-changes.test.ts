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
});
