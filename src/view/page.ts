/**
 * The live lifecycle page: one static HTML document with its style and script inline, so it
 * needs nothing but the view server that sent it (no framework, no CDN, no font). It reads the
 * token from its own address, listens to `events` (Server-Sent Events) and draws one row per
 * server: its state on the server chart, the last transitions with their times, retries and
 * the next retry, requests in flight, the tool count and the last error with its stderr tail.
 * Every text from the server is set with `textContent`, never parsed as HTML.
 */

const STYLE = `
:root { font-family: 'DejaVu Sans', Verdana, sans-serif; color: #1f2328; background: #f6f8fa; }
body { margin: 0; padding: 16px 24px; }
h1 { font-size: 18px; margin: 0 0 4px; }
#status { font-size: 13px; color: #59636e; margin-bottom: 12px; }
#status[data-live="false"] { color: #cf222e; }
.server { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; margin-bottom: 16px; padding: 12px 16px; }
.server > header { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; }
.server h2 { font-size: 16px; margin: 0; }
.badge { font-size: 13px; font-weight: bold; padding: 2px 10px; border-radius: 12px; color: #fff; background: #6e7781; transition: background 0.3s; }
[data-state="connected"] > header .badge { background: #1a7f37; }
[data-state="connecting"] > header .badge { background: #9a6700; }
[data-state="error"] > header .badge { background: #cf222e; }
.path, .transport, .description { font-size: 13px; color: #59636e; }
.body { display: flex; gap: 20px; align-items: flex-start; margin-top: 8px; flex-wrap: wrap; }
.chart { flex: 0 0 auto; width: 640px; }
.chart svg { width: 100%; height: auto; display: block; }
.chart g.state > rect.box { transition: fill 0.3s, stroke 0.3s; }
.chart g.state.active > rect.box { stroke: #1a7f37; stroke-width: 4; }
.chart g.state.active[data-kind="atomic"] > rect.box { fill: #dafbe1; }
.facts { flex: 1 1 320px; font-size: 13px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 8px; }
dt { color: #59636e; }
dd { margin: 0; }
.error { border-left: 3px solid #cf222e; padding: 4px 8px; background: #fff5f5; margin-bottom: 8px; white-space: pre-wrap; }
.error pre { margin: 4px 0 0; max-height: 160px; overflow: auto; font-size: 12px; color: #59636e; }
ol.transitions { list-style: none; padding: 0; margin: 0; max-height: 240px; overflow: auto; }
ol.transitions li { padding: 1px 4px; border-radius: 3px; }
ol.transitions li time { color: #59636e; margin-right: 8px; font-variant-numeric: tabular-nums; }
ol.transitions li.new { animation: flash 1.2s ease-out; }
@keyframes flash { from { background: #fff8c5; } to { background: transparent; } }
`;

const SCRIPT = `
const token = new URLSearchParams(location.search).get('token') || '';
const list = document.getElementById('servers');
const status = document.getElementById('status');
const chart = document.getElementById('chart');
const rows = new Map();

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
function clock(at) {
  const date = new Date(at);
  return date.toLocaleTimeString([], { hour12: false }) + '.' + String(date.getMilliseconds()).padStart(3, '0');
}
function seconds(ms) { return (Math.max(0, ms) / 1000).toFixed(1) + ' s'; }

function section(name) {
  let view = rows.get(name);
  if (view) return view;
  const root = element('section', 'server');
  root.dataset.server = name;
  const header = element('header');
  const title = element('h2', '', name);
  const badge = element('span', 'badge');
  const path = element('span', 'path');
  const transport = element('span', 'transport');
  const description = element('span', 'description');
  header.append(title, badge, path, transport, description);
  const body = element('div', 'body');
  const drawing = element('div', 'chart');
  if (chart) drawing.append(chart.content.cloneNode(true));
  const facts = element('div', 'facts');
  const dl = element('dl');
  const error = element('div', 'error');
  const transitions = element('ol', 'transitions');
  facts.append(dl, error, transitions);
  body.append(drawing, facts);
  root.append(header, body);
  list.append(root);
  view = { root, badge, path, transport, description, drawing, dl, error, transitions, row: undefined };
  rows.set(name, view);
  return view;
}

function fact(dl, label, value) {
  dl.append(element('dt', '', label), element('dd', '', value));
}

function facts(view) {
  const row = view.row;
  const now = Date.now();
  view.dl.replaceChildren();
  fact(view.dl, 'protocol', row.protocolVersion ?? '—');
  fact(view.dl, 'tools', row.tools === undefined ? '—' : String(row.tools));
  fact(view.dl, 'requests in flight', row.inFlight === undefined ? '—' : String(row.inFlight));
  fact(view.dl, 'retries', row.attempt === undefined ? '—' : String(row.attempt));
  fact(view.dl, 'next retry', row.retryAt ? (row.retryAt > now ? 'in ' + seconds(row.retryAt - now) + ' (' + clock(row.retryAt) + ')' : 'now') : '—');
  fact(view.dl, 'timers', row.timers.length ? row.timers.map((t) => t.delay + ' in ' + seconds(t.at - now)).join(', ') : '—');
}

function render(row) {
  const view = section(row.name);
  const seen = view.row ? view.row.transitions.length && view.row.transitions[view.row.transitions.length - 1].at : 0;
  view.row = row;
  view.root.dataset.state = row.state;
  view.badge.textContent = row.state;
  view.path.textContent = row.active[row.active.length - 1];
  view.transport.textContent = row.transport;
  view.description.textContent = row.description || '';
  for (const group of view.drawing.querySelectorAll('g.state')) {
    group.classList.toggle('active', row.active.includes(group.dataset.state));
  }
  facts(view);
  view.error.hidden = !row.lastError;
  view.error.replaceChildren();
  if (row.lastError) {
    view.error.append(element('div', 'message', row.lastError.message));
    if (row.lastError.stderrTail) view.error.append(element('pre', 'stderr', row.lastError.stderrTail));
  }
  view.transitions.replaceChildren(...row.transitions.slice().reverse().map((transition) => {
    const item = element('li', transition.at > seen ? 'new' : '');
    item.dataset.state = transition.state;
    item.dataset.path = transition.path;
    item.append(element('time', '', clock(transition.at)), document.createTextNode(transition.path));
    return item;
  }));
}

function remove(name) {
  const view = rows.get(name);
  if (view) view.root.remove();
  rows.delete(name);
}

const events = new EventSource('events?token=' + encodeURIComponent(token));
events.onopen = () => { status.textContent = 'live: updates pushed by the manager'; status.dataset.live = 'true'; };
events.onerror = () => { status.textContent = 'disconnected from the view server; retrying…'; status.dataset.live = 'false'; };
events.onmessage = (message) => {
  const update = JSON.parse(message.data);
  if (update.type === 'rows') { for (const name of [...rows.keys()]) remove(name); update.rows.forEach(render); }
  if (update.type === 'row') render(update.row);
  if (update.type === 'removed') remove(update.name);
};
setInterval(() => { for (const view of rows.values()) if (view.row) facts(view); }, 250);
`;

/** The page, with the server chart's SVG (visualizations/server.svg) when there is one. */
export function lifecyclePage(chartSvg: string | undefined): string {
  const chart = chartSvg ? `<template id="chart">${chartSvg}</template>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>mcp-statechart: live lifecycle</title>
<style>${STYLE}</style>
</head>
<body>
<h1>mcp-statechart: live lifecycle</h1>
<div id="status">connecting to the view server…</div>
${chart}
<main id="servers"></main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
