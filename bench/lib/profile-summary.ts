/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with the most self time,
 * and the share of samples spent in each package/folder.
 * Run: npx tsx bench/lib/profile-summary.ts FILE.cpuprofile [--top 25]
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTimeRow {
  functionName: string;
  location: string;
  selfMs: number;
  selfPercent: number;
}

export interface ProfileSummary {
  totalMs: number;
  top: SelfTimeRow[];
  /** Self time by where the code lives: `node_modules/<package>`, a project folder, `(node internals)`, `(idle/gc)`. */
  byOrigin: Array<{ origin: string; selfMs: number; selfPercent: number }>;
}

/** Where the code of a profile node lives, in a few words. */
function originOf(url: string, functionName: string): string {
  if (functionName === '(idle)' || functionName === '(garbage collector)' || functionName === '(program)') return functionName;
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return '(node internals)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return `node_modules/${rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  for (const folder of ['/src/', '/machines/', '/bench/', '/test/']) {
    const at = url.lastIndexOf(folder);
    if (at >= 0) return `${folder.slice(1)}${url.slice(at + folder.length).split('/')[0]}`;
  }
  return url;
}

function shortLocation(url: string, line: number): string {
  const modules = url.lastIndexOf('/node_modules/');
  const short = modules >= 0 ? url.slice(modules + '/node_modules/'.length) : url.replace(/^file:\/\/.*?\/(src|machines|bench|test)\//, '$1/');
  return url === '' ? '' : `${short}:${line + 1}`;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** [generated column, source index, source line, source column] segments, by generated line. */
type MappingLines = Array<Array<[number, number, number, number]>>;

function decodeMappings(mappings: string): MappingLines {
  const lines: MappingLines = [];
  let source = 0;
  let sourceLine = 0;
  let sourceColumn = 0;
  for (const lineText of mappings.split(';')) {
    const segments: Array<[number, number, number, number]> = [];
    let column = 0;
    for (const segment of lineText.split(',')) {
      if (segment === '') continue;
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) {
          shift += 5;
        } else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += values[0] ?? 0;
      if (values.length >= 4) {
        source += values[1]!;
        sourceLine += values[2]!;
        sourceColumn += values[3]!;
        segments.push([column, source, sourceLine, sourceColumn]);
      }
    }
    lines.push(segments);
  }
  return lines;
}

/** Maps bundle positions back to the project's sources, through the bundle's linked `.map` file. */
class SourceMaps {
  private readonly maps = new Map<string, { sources: string[]; lines: MappingLines } | null>();

  resolve(url: string, line: number, column: number): { url: string; line: number } | undefined {
    if (!url.startsWith('file://') || !url.endsWith('.mjs')) return undefined;
    let map = this.maps.get(url);
    if (map === undefined) {
      const file = `${fileURLToPath(url)}.map`;
      map = null;
      if (existsSync(file)) {
        const raw = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[]; mappings: string; sourceRoot?: string };
        const folder = path.dirname(file);
        map = { sources: raw.sources.map((source) => pathToFileURL(path.resolve(folder, raw.sourceRoot ?? '', source)).href), lines: decodeMappings(raw.mappings) };
      }
      this.maps.set(url, map);
    }
    const segments = map?.lines[line];
    if (!map || !segments) return undefined;
    let found: [number, number, number, number] | undefined;
    for (const segment of segments) {
      if (segment[0] > column) break;
      found = segment;
    }
    return found ? { url: map.sources[found[1]] ?? url, line: found[2] } : undefined;
  }
}

export function summarizeProfile(profile: CpuProfile, topCount = 20): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index]!;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const totalMicros = [...selfMicros.values()].reduce((sum, value) => sum + value, 0) || 1;
  const sourceMaps = new SourceMaps();
  // One row per function (same name and place), whatever stack it was sampled on.
  const rows = new Map<string, SelfTimeRow & { micros: number }>();
  const origins = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const name = frame.functionName || '(anonymous)';
    const mapped = sourceMaps.resolve(frame.url, frame.lineNumber, frame.columnNumber);
    const url = mapped?.url ?? frame.url;
    const line = mapped?.line ?? frame.lineNumber;
    const key = `${name}@${url}:${line}:${mapped ? 0 : frame.columnNumber}`;
    const row = rows.get(key) ?? { functionName: name, location: shortLocation(url, line), selfMs: 0, selfPercent: 0, micros: 0 };
    row.micros += micros;
    rows.set(key, row);
    const origin = originOf(url, name);
    origins.set(origin, (origins.get(origin) ?? 0) + micros);
  }
  const top = [...rows.values()]
    .sort((a, b) => b.micros - a.micros)
    .slice(0, topCount)
    .map(({ micros, ...row }) => ({ ...row, selfMs: micros / 1000, selfPercent: (100 * micros) / totalMicros }));
  const byOrigin = [...origins.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([origin, micros]) => ({ origin, selfMs: micros / 1000, selfPercent: (100 * micros) / totalMicros }));
  return { totalMs: totalMicros / 1000, top, byOrigin };
}

export function formatProfileSummary(summary: ProfileSummary, originCount = 12): string {
  const lines = [`total sampled: ${summary.totalMs.toFixed(0)} ms`, '', 'self % | self ms | function | where'];
  for (const row of summary.top) {
    lines.push(`${row.selfPercent.toFixed(1).padStart(5)}% | ${row.selfMs.toFixed(0).padStart(6)} | ${row.functionName} | ${row.location}`);
  }
  lines.push('', 'self % | by origin');
  for (const row of summary.byOrigin.slice(0, originCount)) lines.push(`${row.selfPercent.toFixed(1).padStart(5)}% | ${row.origin}`);
  return lines.join('\n');
}

export function summarizeProfileFile(file: string, topCount = 20): ProfileSummary {
  return summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, topCount);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const files = process.argv.slice(2).filter((arg) => !arg.startsWith('--') && !/^\d+$/.test(arg));
  const topAt = process.argv.indexOf('--top');
  const top = topAt > 0 ? Number(process.argv[topAt + 1]) : 25;
  for (const file of files) {
    console.log(`== ${file}`);
    console.log(formatProfileSummary(summarizeProfileFile(file, top)));
  }
}
