/**
 * An index that holds one manifest, of a server the test does not configure: search_mcp_tools is
 * offered only over a non-empty index, and this one adds nothing the test's servers would match.
 * Seen by this process at once; `await seedManifestIndex(…).flush()` before another process reads it.
 */
import { ManifestIndex } from '../../src/index.js';
import { defaultManifestIndexPath } from '../../src/entries/config.js';

export function seedManifestIndex(indexPath: string = defaultManifestIndexPath()): ManifestIndex {
  const index = new ManifestIndex({ path: indexPath });
  const manifest = {
    tools: [{ name: 'noop', description: 'Does nothing', inputSchema: { type: 'object' as const } }],
    resources: [],
    resourceTemplates: [],
    prompts: [],
  };
  index.record('indexed-elsewhere', { command: 'indexed-elsewhere' }, manifest);
  return index;
}
