/** A PNG of an SVG as Chromium draws it, scaled to a given width (the picture on the repository page). */
import type { BrowserContext } from 'playwright-core';

export const SCREENSHOT_WIDTH = 1600;
/** A small chart is drawn at most twice its natural size and centred, rather than blown up to the full width. */
const MAX_SCALE = 2;

export function viewBoxOf(svg: string): { x: number; y: number; width: number; height: number } {
  const match = /<svg[^>]*\sviewBox="([^"]+)"/.exec(svg);
  if (!match) throw new Error('the SVG has no viewBox');
  const [x, y, width, height] = match[1]!.trim().split(/[\s,]+/).map(Number) as [number, number, number, number];
  return { x, y, width, height };
}

/** The PNG's size and the scale the SVG is drawn at in it. */
export function screenshotSize(svg: string, width = SCREENSHOT_WIDTH): { width: number; height: number; scale: number } {
  const box = viewBoxOf(svg);
  const scale = Math.min(width / box.width, MAX_SCALE);
  return { width, height: Math.ceil(box.height * scale), scale };
}

export async function screenshotSvg(context: BrowserContext, svg: string, width = SCREENSHOT_WIDTH): Promise<Buffer> {
  const box = viewBoxOf(svg);
  const { height, scale } = screenshotSize(svg, width);
  const page = await context.newPage();
  try {
    await page.setViewportSize({ width, height });
    await page.setContent(
      `<!doctype html><html><head><style>html,body{margin:0;background:#fff}svg{display:block;margin:0 auto;width:${box.width * scale}px;height:${height}px}</style></head><body>${svg}</body></html>`,
    );
    return await page.screenshot({ clip: { x: 0, y: 0, width, height }, type: 'png' });
  } finally {
    await page.close();
  }
}
