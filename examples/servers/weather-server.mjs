#!/usr/bin/env node
// A small weather server over Streamable HTTP on 127.0.0.1, used by `mcp-statechart demo`.
// `startWeatherServer()` runs it in-process; run the file directly to serve on $PORT.
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
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
  // The weather keeps no state between requests: the SDK's handler builds a server for each one.
  const handler = createMcpHandler(weatherServer);
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const dropped = new AbortController();
    res.once('close', () => dropped.abort());
    const answer = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers, body: body.length > 0 ? body : undefined, signal: dropped.signal }),
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (answer.body) for await (const chunk of answer.body) res.write(chunk);
    res.end();
  });
  await new Promise((listening) => http.listen(port, '127.0.0.1', listening));
  const { port: actualPort } = http.address();
  return {
    url: `http://127.0.0.1:${actualPort}/mcp`,
    port: actualPort,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise((closed) => http.close(closed));
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url } = await startWeatherServer(Number(process.env.PORT ?? 0));
  process.stderr.write(`weather server on ${url}\n`);
}
