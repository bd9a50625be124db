/**
 * The optional semantic stage of search_mcp_tools (`search: { embed }`): word and vector rankings
 * fused, vectors kept beside the index and reused, only changed servers embedded again, and words
 * alone when the embedding function fails. A deterministic embedder stands in for a model.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { TEST_EMBEDDER_MODEL, testEmbedding } from '../bench/lib/test-embedder.js';
import { runProcess, TSX_LOADER } from './support/cli.js';

const VECTOR_STORE_READER = fileURLToPath(new URL('./fixtures/vector-store-reader.ts', import.meta.url));

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

type Catalogue = Record<string, { description: string; tools: Array<ReturnType<typeof tool>> }>;

function record(name: keyof typeof CATALOGUE, tools = CATALOGUE[name].tools): void {
  index.record(name, config(name), { tools, resources: [], resourceTemplates: [], prompts: [] });
}

function searchTool(embed?: EmbedFunction, catalogue: Catalogue = CATALOGUE, vectorWeight?: number): LoaderTool {
  const servers: LoaderServers = {};
  for (const [name, { description }] of Object.entries(catalogue)) servers[name] = { config: config(name), description };
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const search = embed && { embed, model: TEST_EMBEDDER_MODEL, ...(vectorWeight === undefined ? {} : { vectorWeight }) };
  const tools = createLoaderTools({ manager, servers, manifestIndex: index, ...(search ? { search } : {}) });
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

  it('writes only new vectors: a change appends its own, and a file cut short loses only its last one', async () => {
    const file = path.join(folder, 'mcp-index.json.vectors.json');
    const search = searchTool(countingEmbedder().embed);
    await first(search, 'rent');
    const before = readFileSync(file, 'utf8');
    record('media', [...CATALOGUE.media.tools, tool('delete_image', 'Delete an image')]);
    await first(search, 'remove a picture');
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length).trim().split('\n')).toHaveLength(1);

    // A process stopped in the middle of appending.
    writeFileSync(file, after.slice(0, -10));
    const next = countingEmbedder();
    await first(searchTool(next.embed), 'remove a picture');
    expect(next.embedded).toEqual(['media: delete_image. Delete an image', 'remove a picture']);
    const third = countingEmbedder();
    await first(searchTool(third.embed), 'remove a picture');
    expect(third.embedded).toEqual(['remove a picture']);
  });

  it('starts with no vectors from a FIFO planted where they are kept, instead of waiting on it for good', async () => {
    const file = path.join(folder, 'mcp-index.json.vectors.json');
    execFileSync('mkfifo', [file]);
    const run = await runProcess(process.execPath, ['--import', TSX_LOADER, VECTOR_STORE_READER, file], { timeoutMs: 15_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('opened\n');
    expect(run.code).toBe(0);
  }, 30_000);

  it('ranks by words alone, and says so, when the embedding function fails', async () => {
    const failing: EmbedFunction = async () => {
      throw new Error('model unavailable');
    };
    const { found, notes } = await first(searchTool(failing), 'rent a car');
    expect(found[0]).toBe('rentals/rent_car');
    expect(notes.join(' ')).toMatch(/Ranked by words only: the embedding function failed \(model unavailable\)/);
  });
});

describe('reciprocal rank fusion', () => {
  // Words rank archive_invoices first and move_invoices second; the vectors below rank
  // cold_storage, move_invoices, send_invoice, archive_invoices. Each tool has a server of its
  // own, so the fusion alone orders them (the choice among one server's tools is tested below).
  const query = 'archive old invoices';
  const invoiceTools = [
    tool('archive_invoices', 'Archive old invoices'),
    tool('move_invoices', 'Move old invoices to storage'),
    tool('send_invoice', 'Send an invoice by email'),
    tool('cold_storage', 'Put documents in cold storage'),
  ];
  const servers = ['north', 'south', 'east', 'west'];
  const invoices: Catalogue = Object.fromEntries(invoiceTools.map((entry, at) => [servers[at]!, { description: 'Invoices', tools: [entry] }]));
  const angles: Record<string, number> = { cold_storage: 0, move_invoices: 0.6, send_invoice: 0.9, archive_invoices: 1.5 };
  /** The query points along the first axis; each tool at its angle from it. */
  const byAngle: EmbedFunction = async (texts) =>
    texts.map((text) => {
      const angle = text === query ? 0 : angles[/^\w+: (\w+)\./.exec(text)?.[1] ?? '']!;
      return [Math.cos(angle), Math.sin(angle)];
    });
  /** The tools' names, best first, without their servers. */
  const ranked = async (search: LoaderTool, asked: string) => (await first(search, asked)).found.map((name) => name.split('/')[1]);

  beforeEach(() => {
    invoiceTools.forEach((entry, at) => index.record(servers[at]!, config(servers[at]!), { tools: [entry], resources: [], resourceTemplates: [], prompts: [] }));
  });

  it('at equal weight puts first the tool both rankings place high, not the first of either alone', async () => {
    expect((await ranked(searchTool(undefined, invoices), query)).slice(0, 2)).toEqual(['archive_invoices', 'move_invoices']);
    // By rank (k = 60): move_invoices 1/62 + 1/62 beats archive_invoices 1/61 + 1/64, and cold_storage 1/61 (+ 1/64 at best).
    expect((await ranked(searchTool(byAngle, invoices, 1), query)).slice(0, 2)).toEqual(['move_invoices', 'archive_invoices']);
  });

  it('weighs the vectors by vectorWeight: by default they leave the words\' first where equal weight moved it', async () => {
    // Default 0.03: archive_invoices 1/61 + 0.03/64 still beats move_invoices 1/62 + 0.03/62.
    expect((await ranked(searchTool(byAngle, invoices), query)).slice(0, 2)).toEqual(['archive_invoices', 'move_invoices']);
    // Twice the words' weight, the vectors lead: cold_storage 2/61 + 1/64 (the words' fourth) passes move_invoices 3/62 and archive_invoices 1/61 + 2/64.
    expect(await ranked(searchTool(byAngle, invoices, 2), query)).toEqual(['cold_storage', 'move_invoices', 'archive_invoices']);
  });

  it('by default lets the vectors move a tool past a word neighbour they do not place', async () => {
    // archive_invoices without a vector: move_invoices 1/62 + 0.03/62 passes its 1/61.
    const noArchiveVector: EmbedFunction = async (texts) => (await byAngle(texts)).map((vector, at) => (texts[at]!.startsWith('north: archive_invoices.') ? [] : vector));
    expect((await ranked(searchTool(noArchiveVector, invoices), query)).slice(0, 2)).toEqual(['move_invoices', 'archive_invoices']);
  });

  it('at vectorWeight 0 ranks by words alone and embeds nothing', async () => {
    const words = await ranked(searchTool(undefined, invoices), query);
    const embedded: string[] = [];
    const counting: EmbedFunction = async (texts) => {
      embedded.push(...texts);
      return byAngle(texts);
    };
    expect(await ranked(searchTool(counting, invoices, 0), query)).toEqual(words);
    expect(embedded).toEqual([]);
  });

  it('refuses a vectorWeight that is not a finite number ≥ 0, saying what it must be', () => {
    for (const vectorWeight of [-0.5, Number.NaN, Number.POSITIVE_INFINITY, '0.5' as unknown as number]) {
      expect(() => searchTool(byAngle, invoices, vectorWeight)).toThrow(/^search\.vectorWeight must be a finite number ≥ 0 \(0: words alone; 1: the vectors weigh as much as the words\), not /);
    }
  });
});

describe('the choice among one server\'s tools', () => {
  // The fusion weighs the vectors too little to turn a tie of words (0.03 / 61 against 1 / 61 - 1 / 62):
  // among the first result's server's tools within the first five, a tool's words' score over the
  // best of theirs plus 0.2 times its vector's similarity to the query orders them.
  /** The query along the first axis; each named tool at its angle from it, any other at a right angle. */
  const byAngle =
    (query: string, angles: Record<string, number>): EmbedFunction =>
    async (texts) =>
      texts.map((text) => {
        const angle = text === query ? 0 : (angles[/^\w+: (\w+)\./.exec(text)?.[1] ?? ''] ?? Math.PI / 2);
        return [Math.cos(angle), Math.sin(angle)];
      });
  const recordAll = (catalogue: Catalogue) => {
    for (const [name, { tools }] of Object.entries(catalogue)) index.record(name, config(name), { tools, resources: [], resourceTemplates: [], prompts: [] });
  };

  it('settles a tie of words by meaning, where words alone keep their own order', async () => {
    const notes: Catalogue = { notes: { description: 'Notes', tools: [tool('pin_note', 'Write down a note for later'), tool('stash_note', 'Write down a note for later')] } };
    recordAll(notes);
    const query = 'write down a note for later';
    expect((await first(searchTool(undefined, notes), query)).found).toEqual(['notes/pin_note', 'notes/stash_note']);
    const embed = byAngle(query, { stash_note: 0.2, pin_note: 1.2 });
    expect((await first(searchTool(embed, notes), query)).found).toEqual(['notes/stash_note', 'notes/pin_note']);
  });

  it('keeps a clear lead of words over a sibling nearer in meaning', async () => {
    const invoices: Catalogue = {
      invoices: { description: 'Invoices', tools: [tool('archive_invoices', 'Archive old invoices'), tool('move_invoices', 'Move old invoices to storage')] },
    };
    recordAll(invoices);
    const query = 'archive old invoices';
    const embed = byAngle(query, { move_invoices: 0, archive_invoices: 1.5 });
    expect((await first(searchTool(embed, invoices), query)).found).toEqual(['invoices/archive_invoices', 'invoices/move_invoices']);
  });

  it('leaves which server comes first to the fusion', async () => {
    const two: Catalogue = {
      ledger: { description: 'Ledger', tools: [tool('archive_invoices', 'Archive old invoices')] },
      vault: { description: 'Vault', tools: [tool('move_invoices', 'Move old invoices to storage'), tool('cold_storage', 'Put documents in cold storage')] },
    };
    recordAll(two);
    const query = 'archive old invoices';
    const embed = byAngle(query, { cold_storage: 0, move_invoices: 0.1, archive_invoices: 1.5 });
    expect((await first(searchTool(embed, two), query)).found[0]).toBe('ledger/archive_invoices');
  });
});
