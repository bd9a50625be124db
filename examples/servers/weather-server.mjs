#!/usr/bin/env node
// A small weather server over Streamable HTTP on 127.0.0.1, used by `mcp-statechart demo`.
// `startWeatherServer()` runs it in-process; run the file directly to serve on $PORT.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const CITIES = { berlin: [4, 'sleet'], lisbon: [17, 'sunny'], tokyo: [11, 'clear'], lima: [19, 'overcast'] };

function weatherServer() {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.registerTool(
    'get_forecast',
    { description: 'Tomorrow\'s forecast for a city.', inputSchema: { city: z.string() } },
    async ({ city }) => {
      const entry = CITIES[city.toLowerCase()];
      if (!entry) return { isError: true, content: [{ type: 'text', text: `No station for "${city}". Known: ${Object.keys(CITIES).join(', ')}.` }] };
      const [celsius, sky] = entry;
      return { content: [{ type: 'text', text: `${city}: ${celsius} °C, ${sky}.` }], structuredContent: { celsius, sky } };
    },
  );
  server.registerTool('list_cities', { description: 'Cities with a weather station.', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: Object.keys(CITIES).join(', ') }],
  }));
  server.registerResource('stations', 'weather://stations', { mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(Object.keys(CITIES)) }],
  }));
  return server;
}

/** Serves Streamable HTTP at http://127.0.0.1:<port>/mcp; resolves with the URL and a close(). */
export async function startWeatherServer(port = 0) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await weatherServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise((listening) => http.listen(port, '127.0.0.1', listening));
  const { port: actualPort } = http.address();
  return {
    url: `http://127.0.0.1:${actualPort}/mcp`,
    port: actualPort,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise((closed) => http.close(closed));
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url } = await startWeatherServer(Number(process.env.PORT ?? 0));
  process.stderr.write(`weather server on ${url}\n`);
}
