/**
 * The optional semantic stage of search_mcp_tools (`search: { embed }`): word and vector rankings
 * fused, vectors kept beside the index and reused, only changed servers embedded again, and words
 * alone when the embedding function fails. A deterministic embedder stands in for a model.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createLoaderTools,
  ManifestIndex,
  McpConnectionManager,
  silentLogger,
  type EmbedFunction,
  type LoaderServers,
  type LoaderTool,
  type McpServerConfig,
} from '../src/index.js';

let folder: string;
let index: ManifestIndex;
const managers: McpConnectionManager[] = [];
beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-search-semantic-'));
  index = new ManifestIndex({ path: path.join(folder, 'mcp-index.json') });
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  rmSync(folder, { recursive: true, force: true });
});

/** Words of one meaning share a dimension; any other word gets one of 32 hashed dimensions. */
const CONCEPTS = [['automobile', 'car', 'vehicle'], ['picture', 'photo', 'image'], ['rain', 'weather', 'forecast', 'umbrella']];
const DIMENSIONS = CONCEPTS.length + 32;

function testEmbedding(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().split(/[^a-z]+/).filter(Boolean)) {
    const concept = CONCEPTS.findIndex((words) => words.includes(word));
    if (concept >= 0) vector[concept]! += 3;
    else vector[CONCEPTS.length + ([...word].reduce((sum, char) => sum * 31 + char.charCodeAt(0), 7) % 32)]! += 1;
  }
  return vector;
}

function countingEmbedder() {
  const embedded: string[] = [];
  const embed: EmbedFunction = async (texts) => {
    embedded.push(...texts);
    return texts.map(testEmbedding);
  };
  return { embed, embedded };
}

const config = (name: string): McpServerConfig => ({ command: 'never-started', args: [name] });
const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: 'object' as const, properties: {} } });

const CATALOGUE = {
  rentals: { description: 'Rentals', tools: [tool('rent_car', 'Rent a car for a trip'), tool('book_hotel', 'Book a hotel room')] },
  media: { description: 'Media library', tools: [tool('upload_photo', 'Upload a photo to the library'), tool('list_albums', 'List albums')] },
  sky: { description: 'Sky service', tools: [tool('get_forecast', 'Weather forecast for a city')] },
};

function record(name: keyof typeof CATALOGUE, tools = CATALOGUE[name].tools): void {
  index.record(name, config(name), { tools, resources: [], resourceTemplates: [], prompts: [] });
}

function searchTool(embed?: EmbedFunction): LoaderTool {
  const servers: LoaderServers = {};
  for (const [name, { description }] of Object.entries(CATALOGUE)) servers[name] = { config: config(name), description };
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const tools = createLoaderTools({ manager, servers, manifestIndex: index, ...(embed ? { search: { embed, model: 'test-embedder' } } : {}) });
  return tools.find((entry) => entry.name === 'search_mcp_tools')!;
}

async function first(search: LoaderTool, query: string): Promise<{ found: string[]; notes: string[] }> {
  const { tools, notes } = (await search.execute({ query, limit: 3 })).data as { tools: Array<{ server: string; tool: string }>; notes: string[] };
  return { found: tools.map(({ server, tool: name }) => `${server}/${name}`), notes };
}

describe('hybrid ranking', () => {
  beforeEach(() => {
    for (const name of Object.keys(CATALOGUE) as Array<keyof typeof CATALOGUE>) record(name);
  });

  it('finds a tool by meaning that words alone miss', async () => {
    // (WordNet's thesaurus relates "automobile" to car, so words alone find that one; nothing relates an umbrella to a forecast.)
    expect((await first(searchTool(), 'will I need an umbrella')).found).not.toContain('sky/get_forecast');
    const { embed } = countingEmbedder();
    expect((await first(searchTool(embed), 'automobile for the weekend')).found[0]).toBe('rentals/rent_car');
    expect((await first(searchTool(embed), 'will I need an umbrella')).found[0]).toBe('sky/get_forecast');
  });

  it('keeps what words find: an exact tool name still comes first', async () => {
    const { embed } = countingEmbedder();
    expect((await first(searchTool(embed), 'upload_photo')).found[0]).toBe('media/upload_photo');
  });

  it('stores the vectors beside the index: a second session embeds only its queries', async () => {
    const session = countingEmbedder();
    await first(searchTool(session.embed), 'picture upload');
    expect(session.embedded).toHaveLength(5 + 1);
    expect(existsSync(path.join(folder, 'mcp-index.json.vectors.json'))).toBe(true);
    const next = countingEmbedder();
    expect((await first(searchTool(next.embed), 'picture upload')).found[0]).toBe('media/upload_photo');
    expect(next.embedded).toEqual(['picture upload']);
  });

  it('embeds again only the server whose tools changed', async () => {
    const { embed, embedded } = countingEmbedder();
    const search = searchTool(embed);
    await first(search, 'rent');
    embedded.length = 0;
    record('media', [...CATALOGUE.media.tools, tool('delete_image', 'Delete an image')]);
    expect((await first(search, 'remove a picture')).found[0]).toBe('media/delete_image');
    expect(embedded).toEqual(['media: delete_image. Delete an image', 'remove a picture']);
  });

  it('ranks by words alone, and says so, when the embedding function fails', async () => {
    const failing: EmbedFunction = async () => {
      throw new Error('model unavailable');
    };
    const { found, notes } = await first(searchTool(failing), 'rent a car');
    expect(found[0]).toBe('rentals/rent_car');
    expect(notes.join(' ')).toMatch(/Ranked by words only: the embedding function failed \(model unavailable\)/);
  });
});
