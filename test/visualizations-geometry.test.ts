/// <reference lib="dom" />
/**
 * The diagrams in visualizations/ read at a glance: nothing is drawn outside the picture, no two
 * state boxes or edge labels overlap, and every text sits inside its box — checked on the SVG
 * text itself, and again on what Chromium actually draws (real fonts, real pixels).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type Browser } from '../scripts/chromium.js';
import { textWidth } from '../scripts/diagram/text.js';
import { CHARTS, VISUALIZATIONS_DIR } from '../scripts/visualize.js';
import { withoutChromium } from './support/chromium.js';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
  what: string;
}

const number = (tag: string, name: string): number => {
  const match = new RegExp(`\\s${name}="([-\\d.]+)"`).exec(tag);
  if (!match) throw new Error(`no ${name} in ${tag.slice(0, 80)}`);
  return Number(match[1]);
};
const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

function rectOf(tag: string, what: string): Box {
  return { x: number(tag, 'x'), y: number(tag, 'y'), width: number(tag, 'width'), height: number(tag, 'height'), what };
}

/** A text's box from its baseline, size and the font's metrics: DejaVu Sans ascends 0.93 em and descends 0.24 em. */
function textBoxes(markup: string, owner: string): Box[] {
  return [...markup.matchAll(/<text([^>]*)>(.*?)<\/text>/g)].map(([, attributes, inner]) => {
    const size = number(attributes!, 'font-size');
    const content = unescape(inner!.replace(/<[^>]+>/g, ''));
    const x = number(attributes!, 'x');
    const baseline = number(attributes!, 'y');
    const width = textWidth(content, { size, bold: attributes!.includes('font-weight="bold"') });
    return { x, y: baseline - 0.93 * size, width, height: 1.17 * size, what: `${owner} text "${content}"` };
  });
}

function parseDiagram(svg: string) {
  const [, , width, height] = /viewBox="([^"]+)"/.exec(svg)![1]!.split(' ').map(Number) as [number, number, number, number];
  const states = [...svg.matchAll(/<g class="state" data-state="([^"]*)" data-kind="([^"]*)">(.*?)<\/g>/g)].map(([, path, kind, inner]) => ({
    path: path!,
    compound: kind === 'compound' || kind === 'machine' || kind === 'parallel',
    box: rectOf(/<rect class="box"[^>]*>/.exec(inner!)![0], `state "${path}"`),
    texts: textBoxes(inner!, `state "${path}"`),
  }));
  const labels = [...svg.matchAll(/<g class="label" data-source="([^"]*)" data-target="([^"]*)">(.*?)<\/g>/g)].map(([, source, target, inner]) => ({
    edge: `${source} → ${target}`,
    box: rectOf(/<rect class="label-box"[^>]*>/.exec(inner!)![0], `label ${source} → ${target}`),
    texts: textBoxes(inner!, `label ${source} → ${target}`),
  }));
  const edges = new Map(
    [...svg.matchAll(/<path class="edge" data-source="([^"]*)" data-target="([^"]*)"[^>]*\sd="([^"]+)"/g)].map(([, source, target, d]) => [
      `${source} → ${target}`,
      [...d!.matchAll(/[ML]([-\d.]+) ([-\d.]+)/g)].map(([, x, y]) => ({ x: Number(x), y: Number(y) })),
    ]),
  );
  const points = [...svg.matchAll(/<path class="edge"[^>]*\sd="([^"]+)"/g)].flatMap(([, d]) =>
    [...d!.matchAll(/[ML]([-\d.]+) ([-\d.]+)/g)].map(([, x, y]) => ({ x: Number(x), y: Number(y) })),
  );
  const dots = [...svg.matchAll(/<circle[^>]*>/g)].map(([tag]) => {
    const r = number(tag, 'r');
    return { x: number(tag, 'cx') - r, y: number(tag, 'cy') - r, width: 2 * r, height: 2 * r, what: 'initial dot' };
  });
  return { width, height, states, labels, edges, points, dots };
}

const intersects = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const contains = (outer: Box, inner: Box) =>
  inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;

type Point = { x: number; y: number };

/** How far a box is from a polyline: 0 when a segment touches or crosses it. */
function distanceToPath(box: Box, path: Point[]): number {
  const gap = (low: number, high: number, from: number, to: number) => Math.max(0, Math.min(from, to) - high, low - Math.max(from, to));
  let nearest = Number.POSITIVE_INFINITY;
  // The segments are orthogonal (ELK's routing), so each is its own bounding box.
  for (let index = 1; index < path.length; index++) {
    const [a, b] = [path[index - 1]!, path[index]!];
    nearest = Math.min(nearest, Math.hypot(gap(box.x, box.x + box.width, a.x, b.x), gap(box.y, box.y + box.height, a.y, b.y)));
  }
  return nearest;
}

/** A label this close to its arrow reads as that arrow's, at a glance. */
const LABEL_REACH = 4;

const diagrams = CHARTS.map((chart) => ({ file: `${chart.name}.svg`, svg: readFileSync(join(VISUALIZATIONS_DIR, `${chart.name}.svg`), 'utf8') }));

describe.each(diagrams)('visualizations/$file, as written', ({ svg }) => {
  const diagram = parseDiagram(svg);
  const picture: Box = { x: 0, y: 0, width: diagram.width, height: diagram.height, what: 'viewBox' };

  it('draws every state box, label, text, dot and edge point inside the viewBox', () => {
    const shapes = [
      ...diagram.states.flatMap((state) => [state.box, ...state.texts]),
      ...diagram.labels.flatMap((label) => [label.box, ...label.texts]),
      ...diagram.dots,
      ...diagram.points.map((point) => ({ ...point, width: 0, height: 0, what: `edge point ${point.x},${point.y}` })),
    ];
    expect(diagram.states.length).toBeGreaterThan(0);
    expect(shapes.filter((shape) => !contains(picture, shape)).map((shape) => shape.what)).toEqual([]);
  });

  it('has no two state boxes overlapping: boxes are side by side or one holds the other', () => {
    const overlaps: string[] = [];
    diagram.states.forEach((a, index) => {
      for (const b of diagram.states.slice(index + 1)) {
        if (intersects(a.box, b.box) && !contains(a.box, b.box) && !contains(b.box, a.box)) overlaps.push(`${a.box.what} × ${b.box.what}`);
      }
    });
    expect(overlaps).toEqual([]);
  });

  it('has no edge label overlapping another label, a state box it is not inside, or any text of a state', () => {
    const overlaps: string[] = [];
    diagram.labels.forEach((label, index) => {
      for (const other of diagram.labels.slice(index + 1)) if (intersects(label.box, other.box)) overlaps.push(`${label.box.what} × ${other.box.what}`);
      for (const state of diagram.states) {
        const inside = state.compound && contains(state.box, label.box);
        if (intersects(label.box, state.box) && !inside) overlaps.push(`${label.box.what} × ${state.box.what}`);
        for (const text of state.texts) if (intersects(label.box, text)) overlaps.push(`${label.box.what} × ${text.what}`);
      }
    });
    expect(overlaps).toEqual([]);
  });

  it(`puts every edge label on its own arrow: its box within ${LABEL_REACH} px of that arrow's path`, () => {
    const astray = diagram.labels
      .map((label) => ({ label, path: diagram.edges.get(label.edge) }))
      .filter(({ label, path }) => path === undefined || distanceToPath(label.box, path) > LABEL_REACH)
      .map(({ label, path }) => `${label.box.what}: ${path ? `${Math.round(distanceToPath(label.box, path))} px away` : 'no such arrow'}`);
    expect(astray).toEqual([]);
  });

  it('writes every text inside its own state box or label', () => {
    const outside = [
      ...diagram.states.flatMap((state) => state.texts.filter((text) => !contains(state.box, text))),
      ...diagram.labels.flatMap((label) => label.texts.filter((text) => !contains(label.box, text))),
    ];
    expect(outside.map((text) => text.what)).toEqual([]);
  });

  it('needs nothing from the network: no font import, no external reference', () => {
    expect(svg).not.toMatch(/@import|@font-face|url\((?!#)|href=/);
    expect(svg.replace('xmlns="http://www.w3.org/2000/svg"', '')).not.toMatch(/https?:/);
  });
});

/** Pixels of a PNG screenshot, read back through a canvas in the same browser. */
async function nonBackgroundBox(browser: Browser, png: Buffer, background: [number, number, number]) {
  const page = await browser.context.newPage();
  try {
    return await page.evaluate(
      async ({ data, background }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d')!;
        context.drawImage(image, 0, 0);
        const { data: pixels } = context.getImageData(0, 0, image.width, image.height);
        let [left, top, right, bottom] = [image.width, image.height, -1, -1];
        for (let y = 0; y < image.height; y++) {
          for (let x = 0; x < image.width; x++) {
            const at = (y * image.width + x) * 4;
            const same = Math.abs(pixels[at]! - background[0]) + Math.abs(pixels[at + 1]! - background[1]) + Math.abs(pixels[at + 2]! - background[2]) < 24;
            if (same) continue;
            left = Math.min(left, x);
            right = Math.max(right, x);
            top = Math.min(top, y);
            bottom = Math.max(bottom, y);
          }
        }
        return { left, top, right, bottom };
      },
      { data: png.toString('base64'), background },
    );
  } finally {
    await page.close();
  }
}

const MARGIN = 60;

describe.skipIf(withoutChromium)('visualizations/*.svg, as headless Chromium draws them', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  it.each(diagrams)('$file: the drawing fills its viewBox and nothing spills past it', async ({ svg }) => {
    const { width, height } = parseDiagram(svg);
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: width + 2 * MARGIN, height: height + 2 * MARGIN });
    // On a magenta page with overflow visible, anything drawn outside the viewBox shows.
    await page.setContent(
      `<!doctype html><html><head><style>html,body{margin:0;background:#ff00ff}svg{position:absolute;left:${MARGIN}px;top:${MARGIN}px;overflow:visible}</style></head><body>${svg}</body></html>`,
    );
    const shot = await page.screenshot({ fullPage: true });
    await page.close();
    const drawn = await nonBackgroundBox(browser, shot, [255, 0, 255]);
    expect(drawn).toEqual({ left: MARGIN, top: MARGIN, right: MARGIN + width - 1, bottom: MARGIN + height - 1 });

    // Inside its white background, the drawing keeps clear of the edges: nothing is cut off.
    const alone = await browser.context.newPage();
    await alone.setViewportSize({ width, height });
    await alone.setContent(`<!doctype html><html><head><style>html,body{margin:0;background:#fff}svg{display:block}</style></head><body>${svg}</body></html>`);
    const inner = await nonBackgroundBox(browser, await alone.screenshot(), [255, 255, 255]);
    await alone.close();
    expect(inner.left).toBeGreaterThan(0);
    expect(inner.top).toBeGreaterThan(0);
    expect(inner.right).toBeLessThan(width - 1);
    expect(inner.bottom).toBeLessThan(height - 1);
  });

  it.each(diagrams)('$file: with real fonts, every text fits its box and no two texts overlap', async ({ svg }) => {
    const page = await browser.context.newPage();
    await page.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
    const problems = await page.evaluate(() => {
      const found: string[] = [];
      const boxes: Array<{ box: DOMRect; what: string; group: Element }> = [];
      for (const group of Array.from(document.querySelectorAll('g.state, g.label'))) {
        const frame = (group.querySelector('rect') as SVGRectElement).getBBox();
        for (const text of Array.from(group.querySelectorAll('text'))) {
          const box = text.getBBox();
          const what = `"${text.textContent}"`;
          const inside = box.x >= frame.x && box.y >= frame.y && box.x + box.width <= frame.x + frame.width && box.y + box.height <= frame.y + frame.height;
          if (!inside) found.push(`${what} sticks out of its box`);
          boxes.push({ box, what, group });
        }
      }
      boxes.forEach((a, index) => {
        for (const b of boxes.slice(index + 1)) {
          const overlap = a.box.x < b.box.x + b.box.width && b.box.x < a.box.x + a.box.width && a.box.y < b.box.y + b.box.height && b.box.y < a.box.y + a.box.height;
          // Lines of one box touch by their line height; only texts of different boxes must keep apart.
          if (overlap && a.group !== b.group) found.push(`${a.what} overlaps ${b.what}`);
        }
      });
      return found;
    });
    await page.close();
    expect(problems).toEqual([]);
  });
});
