#!/usr/bin/env node
// A small notes server over stdio, used by `mcp-statechart demo` and the README. Real MCP,
// built on the SDK's McpServer (`@modelcontextprotocol/server`, a dependency, so the demo runs
// from an install): two tools at start, a third one that appears on request (the demo's
// list_changed moment), and two resources.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const notes = [
  { id: 1, title: 'Standup', body: 'Ship the registry chart; review backoff table.' },
  { id: 2, title: 'Groceries', body: 'Coffee, oat milk, rice.' },
];

const server = new McpServer(
  { name: 'notes', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true }, resources: { listChanged: true } } },
);

const text = (value) => ({ content: [{ type: 'text', text: value }] });

server.registerTool(
  'add_note',
  { description: 'Save a note.', inputSchema: { title: z.string(), body: z.string() } },
  async ({ title, body }) => {
    const note = { id: notes.length + 1, title, body };
    notes.push(note);
    return text(`Saved note #${note.id} "${title}".`);
  },
);

server.registerTool(
  'search_notes',
  { description: 'Find notes whose title or body contains the query.', inputSchema: { query: z.string() } },
  async ({ query }) => {
    const hits = notes.filter((note) => `${note.title} ${note.body}`.toLowerCase().includes(query.toLowerCase()));
    return {
      ...text(hits.map((note) => `#${note.id} ${note.title}: ${note.body}`).join('\n') || 'No note matches.'),
      structuredContent: { count: hits.length },
    };
  },
);

server.registerTool(
  'enable_archive',
  { description: 'Turn on archiving: adds the archive_note tool.', inputSchema: {} },
  async () => {
    // registerTool on a connected server sends notifications/tools/list_changed.
    server.registerTool(
      'archive_note',
      { description: 'Archive a note by id.', inputSchema: { id: z.number().int() } },
      async ({ id }) => text(`Archived note #${id}.`),
    );
    return text('Archiving enabled: archive_note is now available.');
  },
);

server.registerTool(
  'server_info',
  { description: 'The process id and uptime of this server.', inputSchema: {} },
  async () => text(JSON.stringify({ pid: process.pid, uptimeSeconds: Math.round(process.uptime()) })),
);

server.registerResource(
  'all-notes',
  'notes://all',
  { description: 'Every note, one per line.', mimeType: 'text/plain' },
  async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: notes.map((note) => `#${note.id} ${note.title}: ${note.body}`).join('\n') }],
  }),
);

await server.connect(new StdioServerTransport());
process.stderr.write(`notes server ready (pid ${process.pid})\n`);
process.stdin.on('end', () => process.exit(0));
