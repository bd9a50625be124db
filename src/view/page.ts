/**
 * The live lifecycle page: one static HTML document with its style and script inline, so it
 * needs nothing but the view server that sent it (no framework, no CDN, no font). It reads the
 * token from its own address, listens to `events` (Server-Sent Events) and draws one compact
 * table row per server — name, a pill with its sub-state, era, requests in flight, a sparkline of
 * the last 30 s of calls, the attempt, the next retry, tools and the last error — so 50 servers
 * fit on one screen. A click opens one server's chart (its active states highlighted), its
 * timers, transitions and stderr tail in a side panel; the chart is drawn only there.
 * Every text from the server is set with `textContent`, never parsed as HTML.
 */

const STYLE = `
:root { font-family: 'DejaVu Sans', Verdana, sans-serif; color: #1f2328; background: #f6f8fa; font-size: 12px; }
body { margin: 0; padding: 6px 16px 0; }
header.top { display: flex; align-items: baseline; gap: 16px; margin-bottom: 6px; }
h1 { font-size: 15px; margin: 0; }
#status { color: #59636e; }
#status[data-live="false"] { color: #cf222e; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid #d0d7de; table-layout: fixed; }
th { text-align: left; font-weight: normal; color: #59636e; border-bottom: 1px solid #d0d7de; padding: 1px 6px; line-height: 14px; }
td { padding: 1px 6px; line-height: 14px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; border-bottom: 1px solid #eaeef2; }
tr.server { cursor: pointer; }
tr.server:hover, tr.server.open { background: #ddf4ff; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
.pill { display: inline-block; padding: 0 8px; border-radius: 7px; color: #fff; background: #6e7781; line-height: 14px; }
[data-state="connected"] .pill { background: #1a7f37; }
[data-state="connecting"] .pill { background: #9a6700; }
[data-state="error"] .pill { background: #cf222e; }
[data-state="disabled"] .pill, [data-state="awaiting approval"] .pill, [data-state="denied"] .pill { background: #fff; color: #59636e; border: 1px dashed #8c959f; line-height: 12px; }
td.error { color: #cf222e; }
tr.off td.error { color: #59636e; }
svg.spark { display: block; width: 72px; height: 12px; }
svg.spark polyline { fill: none; stroke: #0969da; stroke-width: 1.2; }
#detail { position: fixed; top: 8px; right: 8px; bottom: 8px; width: 700px; overflow: auto; background: #fff; border: 1px solid #8c959f; border-radius: 8px; box-shadow: 0 8px 24px rgba(0,0,0,0.2); padding: 10px 14px; }
#detail[hidden] { display: none; }
#detail > header { display: flex; align-items: baseline; gap: 10px; }
#detail h2 { font-size: 15px; margin: 0; }
#detail button.close { margin-left: auto; }
.path, .transport, .description { color: #59636e; }
.chart { width: 100%; margin: 6px 0; }
.chart svg { width: 100%; height: auto; display: block; }
.chart g.state > rect.box { transition: fill 0.3s, stroke 0.3s; }
.chart g.state.active > rect.box { stroke: #1a7f37; stroke-width: 4; }
.chart g.state.active[data-kind="atomic"] > rect.box { fill: #dafbe1; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 8px; }
dt { color: #59636e; }
dd { margin: 0; }
#detail .error { border-left: 3px solid #cf222e; padding: 4px 8px; background: #fff5f5; margin-bottom: 8px; white-space: pre-wrap; }
#detail .error pre { margin: 4px 0 0; max-height: 160px; overflow: auto; font-size: 11px; color: #59636e; }
ol.transitions { list-style: none; padding: 0; margin: 0; }
ol.transitions li { padding: 1px 4px; border-radius: 3px; }
ol.transitions li time { color: #59636e; margin-right: 8px; font-variant-numeric: tabular-nums; }
ol.transitions li.new { animation: flash 1.2s ease-out; }
@keyframes flash { from { background: #fff8c5; } to { background: transparent; } }
`;

const SCRIPT = `
const token = new URLSearchParams(location.search).get('token') || '';
const body = document.getElementById('rows');
const status = document.getElementById('status');
const chart = document.getElementById('chart');
const detail = document.getElementById('detail');
const rows = new Map();
let opened;

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
function nextRetry(row, now) { return row.retryAt ? (row.retryAt > now ? 'in ' + seconds(row.retryAt - now) : 'now') : '—'; }
function count(value) { return value === undefined ? '—' : String(value); }

const SVG = 'http://www.w3.org/2000/svg';
function sparkline(values) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'spark');
  svg.setAttribute('viewBox', '0 0 72 12');
  svg.setAttribute('preserveAspectRatio', 'none');
  const line = document.createElementNS(SVG, 'polyline');
  const top = Math.max(1, ...values);
  const step = values.length > 1 ? 72 / (values.length - 1) : 0;
  line.setAttribute('points', values.map((value, index) => (index * step).toFixed(1) + ',' + (11 - (value / top) * 10).toFixed(1)).join(' '));
  svg.append(line);
  return svg;
}

const COLUMNS = ['name', 'state', 'era', 'inflight', 'calls', 'attempt', 'retry', 'tools', 'error'];
function line(name) {
  let view = rows.get(name);
  if (view) return view;
  const tr = element('tr', 'server');
  tr.dataset.server = name;
  const cells = {};
  for (const column of COLUMNS) {
    cells[column] = element('td', column);
    tr.append(cells[column]);
  }
  for (const column of ['inflight', 'attempt', 'tools']) cells[column].classList.add('number');
  tr.addEventListener('click', () => open(opened === name ? undefined : name));
  body.append(tr);
  view = { tr, cells, row: undefined, seen: 0 };
  rows.set(name, view);
  return view;
}

function fillLine(view, now) {
  const row = view.row;
  const { cells } = view;
  view.tr.dataset.state = row.state;
  view.tr.classList.toggle('off', row.offBecause !== undefined || row.active.length === 0);
  cells.name.textContent = row.shownName;
  cells.name.title = [row.transport, row.description].filter(Boolean).join(' — ');
  cells.state.replaceChildren(element('span', 'pill', row.substate));
  cells.era.textContent = row.protocolVersion ?? '—';
  cells.inflight.textContent = count(row.inFlight);
  cells.calls.replaceChildren(sparkline(row.activity.length ? row.activity : [0]));
  cells.attempt.textContent = count(row.attempt);
  cells.retry.textContent = nextRetry(row, now);
  cells.tools.textContent = count(row.tools);
  const error = row.lastError ? row.lastError.message.split('\\n')[0] : row.offBecause ?? '';
  cells.error.textContent = error;
  cells.error.title = error;
}

function fact(dl, label, value) {
  dl.append(element('dt', '', label), element('dd', '', value));
}

function fillDetail(view, now) {
  const row = view.row;
  detail.dataset.server = row.name;
  detail.dataset.state = row.state;
  detail.querySelector('h2').textContent = row.shownName;
  detail.querySelector('.path').textContent = row.substate;
  detail.querySelector('.transport').textContent = row.transport;
  detail.querySelector('.description').textContent = row.description || '';
  for (const group of detail.querySelectorAll('.chart g.state')) group.classList.toggle('active', row.active.includes(group.dataset.state));
  const dl = detail.querySelector('dl');
  dl.replaceChildren();
  fact(dl, 'protocol', row.protocolVersion ?? '—');
  fact(dl, 'tools', count(row.tools));
  fact(dl, 'requests in flight', count(row.inFlight));
  fact(dl, 'attempt', count(row.attempt));
  fact(dl, 'next retry', row.retryAt ? nextRetry(row, now) + (row.retryAt > now ? ' (' + clock(row.retryAt) + ')' : '') : '—');
  fact(dl, 'timers', row.timers.length ? row.timers.map((t) => t.delay + ' in ' + seconds(t.at - now)).join(', ') : '—');
  if (row.offBecause) fact(dl, 'off because', row.offBecause);
  const error = detail.querySelector('.error');
  error.hidden = !row.lastError;
  error.replaceChildren();
  if (row.lastError) {
    error.append(element('div', 'message', row.lastError.message));
    if (row.lastError.stderrTail) error.append(element('pre', 'stderr', row.lastError.stderrTail));
  }
  const last = row.transitions.length ? row.transitions[row.transitions.length - 1].at : 0;
  detail.querySelector('ol.transitions').replaceChildren(...row.transitions.slice().reverse().map((transition) => {
    const item = element('li', transition.at > view.seen ? 'new' : '');
    item.dataset.state = transition.state;
    item.dataset.path = transition.path;
    item.append(element('time', '', clock(transition.at)), document.createTextNode(transition.path));
    return item;
  }));
  view.seen = last;
}

/** The chart and the details of one server, on demand; only one is drawn at a time. */
function open(name) {
  if (opened) rows.get(opened)?.tr.classList.remove('open');
  opened = name;
  detail.hidden = !name;
  if (!name) return;
  const view = rows.get(name);
  view.tr.classList.add('open');
  const drawing = detail.querySelector('.chart');
  if (chart && !drawing.firstChild) drawing.append(chart.content.cloneNode(true));
  view.seen = Number.MAX_SAFE_INTEGER;
  fillDetail(view, Date.now());
}

function render(row) {
  const view = line(row.name);
  view.row = row;
  fillLine(view, Date.now());
  if (opened === row.name) fillDetail(view, Date.now());
}

function remove(name) {
  const view = rows.get(name);
  if (view) view.tr.remove();
  rows.delete(name);
  if (opened === name) open(undefined);
}

detail.querySelector('button.close').addEventListener('click', () => open(undefined));
const events = new EventSource('events?token=' + encodeURIComponent(token));
events.onopen = () => { status.textContent = 'live: updates pushed by the manager · click a server for its chart'; status.dataset.live = 'true'; };
events.onerror = () => { status.textContent = 'disconnected from the view server; retrying…'; status.dataset.live = 'false'; };
events.onmessage = (message) => {
  const update = JSON.parse(message.data);
  if (update.type === 'rows') { for (const name of [...rows.keys()]) remove(name); update.rows.forEach(render); }
  if (update.type === 'row') render(update.row);
  if (update.type === 'removed') remove(update.name);
};
setInterval(() => {
  const now = Date.now();
  for (const view of rows.values()) if (view.row) view.cells.retry.textContent = nextRetry(view.row, now);
  if (opened && rows.get(opened)?.row) fillDetail(rows.get(opened), now);
}, 250);
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
<header class="top"><h1>mcp-statechart: live lifecycle</h1><div id="status">connecting to the view server…</div></header>
${chart}
<table id="servers">
<colgroup><col style="width:150px"><col style="width:170px"><col style="width:90px"><col style="width:60px"><col style="width:90px"><col style="width:60px"><col style="width:80px"><col style="width:50px"><col></colgroup>
<thead><tr><th>server</th><th>state</th><th>era</th><th>in flight</th><th>calls, 30 s</th><th>attempt</th><th>next retry</th><th>tools</th><th>last error</th></tr></thead>
<tbody id="rows"></tbody>
</table>
<section id="detail" hidden><header><h2></h2><span class="path"></span><span class="transport"></span><span class="description"></span><button class="close" type="button">close</button></header><div class="chart"></div><dl></dl><div class="error"></div><ol class="transitions"></ol></section>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
