/**
 * `npm run bench`: every part of the benchmark, each in a child process of its own, then ONE
 * table of ratios (ours against the baseline, measured side by side in interleaved rounds,
 * medians), and a CPU profile summary for each missed target.
 *
 *   npm run bench                   full run (well under 10 minutes; installs bench/peers first if needed)
 *   npm run bench -- --quick        smoke run: fewer rounds and calls, no profiles
 *   npm run bench -- --only calls,reconnect
 *   npm run bench -- --only search   relevance, latency, context and first-result figures of search_mcp_tools
 *   npm run bench -- --only gateway  serve --http, 1 and 3 replicas behind HAProxy, 50 hosts (needs the haproxy binary)
 *   npm run bench -- --no-profile   skip the profiles of missed targets
 *   npm run bench -- --write        also rewrite the measured section of BENCHMARKS.md
 *   npm run bench -- --build-only   only bundle (to profile a part by hand, see BENCHMARKS.md)
 *
 * The parts are bundled with esbuild (project code bundled, packages external) into
 * bench/.cache/build/ and run by plain `node`, as a user's compiled code would run; the profile
 * summaries map bundle positions back to src/ and machines/ through the bundles' source maps. The
 * last run's numbers go to bench/.cache/last-run.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import { describeMachine, machineInfo, type MachineInfo } from './lib/machine.js';
import { BENCH_DIR, CACHE_DIR, REPO_ROOT } from './lib/paths.js';
import { ensurePeers } from './lib/peers.js';
import { formatProfileSummary, summarizeProfileFile } from './lib/profile-summary.js';
import { ROWS_MARKER, type BenchRow } from './lib/report.js';

interface PartSpec {
  name: string;
  title: string;
  nodeFlags: string[];
}

const PARTS: PartSpec[] = [
  // The SDK's stdio transport (the raw baseline) adds a 'drain' listener per write under backpressure: Node warns at 11. Ours shares one wait.
  { name: 'calls', title: '1–2. call overhead and concurrency', nodeFlags: ['--expose-gc', '--disable-warning=MaxListenersExceededWarning'] },
  { name: 'lazy', title: '3. lazy against eager', nodeFlags: [] },
  { name: 'scale', title: '4. scale', nodeFlags: ['--expose-gc'] },
  { name: 'context', title: '5. context size', nodeFlags: [] },
  { name: 'reconnect', title: '6. reconnect', nodeFlags: [] },
  { name: 'search', title: '7. tool search', nodeFlags: [] },
  { name: 'gateway', title: '8. gateway: serve --http behind HAProxy', nodeFlags: [] },
];
/** Modules the parts start as children of their own, or that profiles run alone. */
const PROFILED_MODULES = ['lazy-ours', 'lazy-raw', 'serve-cli'];
const BUILD_DIR = path.join(CACHE_DIR, 'build');
const PROFILE_DIR = path.join(CACHE_DIR, 'profiles');
const DOC = path.join(REPO_ROOT, 'BENCHMARKS.md');
const DOC_START = '<!-- bench:results:start -->';
const DOC_END = '<!-- bench:results:end -->';

const USAGE = `npm run bench -- [options]

  (no option)      every part (well under 10 minutes; installs bench/peers first if needed)
  --quick          smoke run: fewer rounds and calls, no profiles
  --only a,b       only these parts: ${PARTS.map((part) => part.name).join(', ')}
  --no-profile     skip the profiles of missed targets
  --write          also rewrite the measured section of BENCHMARKS.md
  --build-only     only bundle the parts into bench/.cache/build (to profile one by hand)
  --help           this text
`;

const argv = process.argv.slice(2);
const FLAGS = new Set(['--quick', '--only', '--no-profile', '--write', '--build-only', '--help', '-h']);
const onlyAt = argv.indexOf('--only');
const unknownFlag = argv.find((arg, index) => !FLAGS.has(arg) && (onlyAt < 0 || index !== onlyAt + 1));
if (argv.includes('--help') || argv.includes('-h') || unknownFlag !== undefined) {
  if (unknownFlag === undefined) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  process.stderr.write(`unknown option ${JSON.stringify(unknownFlag)}\n\n${USAGE}`);
  process.exit(2);
}
const quick = argv.includes('--quick');
const only = onlyAt >= 0 ? new Set((argv[onlyAt + 1] ?? '').split(',')) : undefined;
const unknownParts = [...(only ?? [])].filter((name) => !PARTS.some((part) => part.name === name));
if (unknownParts.length > 0) {
  process.stderr.write(`unknown part ${unknownParts.map((name) => JSON.stringify(name)).join(', ')}: --only takes one or more of ${PARTS.map((part) => part.name).join(',')}\n`);
  process.exit(2);
}
const profile = !quick && !argv.includes('--no-profile');
const write = argv.includes('--write');

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

async function bundleParts(): Promise<void> {
  rmSync(BUILD_DIR, { recursive: true, force: true });
  await build({
    entryPoints: [...PARTS.map((part) => part.name), ...PROFILED_MODULES].map((name) => path.join(BENCH_DIR, 'parts', `${name}.ts`)),
    outdir: BUILD_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

/** Runs a command, passing its stderr through, and returns its stdout. */
function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${path.basename(args.at(-1) ?? command)} exited with ${code ?? signal}`));
    });
  });
}

async function runPart(part: PartSpec): Promise<BenchRow[]> {
  const args = [...part.nodeFlags, path.join(BUILD_DIR, `${part.name}.mjs`), ...(quick ? ['--quick'] : [])];
  const stdout = await run(process.execPath, args);
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(ROWS_MARKER));
  if (!line) throw new Error(`part ${part.name} printed no rows`);
  return JSON.parse(line.slice(ROWS_MARKER.length)) as BenchRow[];
}

// ---- The table ------------------------------------------------------------------------

function formatRatio(ratio: number | undefined): string {
  if (ratio === undefined || !Number.isFinite(ratio)) return '—';
  return ratio < 0.1 ? ratio.toFixed(3) : ratio.toFixed(2);
}

function metText(row: BenchRow): string {
  if (row.met === undefined) return '—';
  return row.met ? 'yes' : 'NO';
}

/** How far a missed target is from being met, in words. */
function missText(row: BenchRow): string {
  const target = row.target!;
  const value = target.on === 'ratio' ? row.ratio : undefined;
  if (value === undefined) return `${row.ours} against a target of ${target.text}`;
  if (target.op === '<=') return `ratio ${formatRatio(value)} against ${target.text}: ${((value / target.value - 1) * 100).toFixed(0)}% over`;
  return `ratio ${formatRatio(value)} against ${target.text}: ${((1 - value / target.value) * 100).toFixed(0)}% short`;
}

const HEADER = ['benchmark', 'ours', 'baseline', 'ratio', 'target', 'met?'];

function cells(row: BenchRow): string[] {
  return [row.benchmark, row.ours, row.baseline, formatRatio(row.ratio), row.target?.text ?? '—', metText(row)];
}

function textTable(rows: BenchRow[]): string {
  const table = [HEADER, ...rows.map(cells)];
  const widths = HEADER.map((_, column) => Math.max(...table.map((line) => [...line[column]!].length)));
  const line = (values: string[]) => values.map((value, column) => value.padEnd(widths[column]!)).join(' | ');
  return [line(HEADER), widths.map((width) => '-'.repeat(width)).join('-|-'), ...table.slice(1).map(line)].join('\n');
}

function markdownTable(rows: BenchRow[]): string {
  const escape = (value: string) => value.replace(/\|/g, '\\|');
  return [
    `| ${HEADER.join(' | ')} |`,
    '| --- | ---: | ---: | ---: | :---: | :---: |',
    ...rows.map((row) => `| ${cells(row).map(escape).join(' | ')} |`),
  ].join('\n');
}

// ---- Profiles of missed targets ---------------------------------------------------------

interface ProfileReport {
  key: string;
  rows: string[];
  summary: string;
}

function mainThreadProfile(folder: string): string | undefined {
  const files = readdirSync(folder).filter((file) => file.endsWith('.cpuprofile'));
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread.
  return files.find((file) => file.split('.')[4] === '0') ?? files[0];
}

async function profileMisses(rows: BenchRow[]): Promise<ProfileReport[]> {
  const wanted = new Map<string, { spec: NonNullable<BenchRow['profile']>; rows: string[] }>();
  for (const row of rows) {
    if (row.met !== false || !row.profile) continue;
    const key = `${row.profile.part} ${row.profile.args.join(' ')}`;
    const entry = wanted.get(key) ?? { spec: row.profile, rows: [] };
    entry.rows.push(row.id);
    wanted.set(key, entry);
  }
  const reports: ProfileReport[] = [];
  for (const [key, { spec, rows: ids }] of wanted) {
    const folder = path.join(PROFILE_DIR, key.replace(/[^a-z0-9]+/gi, '-'));
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    log(`profiling ${key} (for ${ids.join(', ')})`);
    const module = path.join(BUILD_DIR, `${spec.part}.mjs`);
    if (spec.window) {
      await run(process.execPath, [module, ...spec.args, '--profile-window', path.join(folder, 'window.cpuprofile')]);
    } else {
      await run(process.execPath, ['--expose-gc', '--cpu-prof', '--cpu-prof-dir', folder, module, ...spec.args]);
    }
    const file = mainThreadProfile(folder);
    if (!file) continue;
    const summary = formatProfileSummary(summarizeProfileFile(path.join(folder, file), 15), 10);
    reports.push({ key, rows: ids, summary: `${summary}\n(profile: ${path.relative(REPO_ROOT, path.join(folder, file))})` });
  }
  return reports;
}

// ---- BENCHMARKS.md ----------------------------------------------------------------------

function busyNote(start: MachineInfo, endLoad: number): string {
  const busy = Math.max(start.loadAverage, endLoad) >= start.cores;
  return busy
    ? `**Measured on a busy machine** (load average ${start.loadAverage.toFixed(1)} at the start, ${endLoad.toFixed(1)} at the end, on ${start.cores} cores, other work running): absolute figures are slower than on a quiet machine; the ratios, measured side by side in interleaved rounds, suffer less.`
    : `Load average ${start.loadAverage.toFixed(1)} at the start and ${endLoad.toFixed(1)} at the end, on ${start.cores} cores.`;
}

function resultsSection(machine: MachineInfo, endLoad: number, rows: BenchRow[], profiles: ProfileReport[], seconds: number): string {
  const lines = [
    DOC_START,
    `Measured with \`npm run bench${quick ? ' -- --quick' : ''}\` in ${seconds.toFixed(0)} s.`,
    '',
    `Machine: ${describeMachine(machine)}.`,
    '',
    busyNote(machine, endLoad),
    '',
    markdownTable(rows),
  ];
  const notes = rows.filter((row) => row.note);
  if (notes.length > 0) {
    lines.push('', 'Notes from the run:', '');
    for (const row of notes) lines.push(`- ${row.id}: ${row.note}`);
  }
  const misses = rows.filter((row) => row.met === false);
  if (misses.length > 0) {
    lines.push('', 'Missed targets:', '');
    for (const row of misses) lines.push(`- ${row.id}: ${missText(row)}`);
  }
  for (const report of profiles) {
    lines.push('', `Profile of \`${report.key}\` (${report.rows.join(', ')}), top self time:`, '', '```text', report.summary, '```');
  }
  lines.push(DOC_END);
  return lines.join('\n');
}

function writeDoc(section: string): void {
  const text = readFileSync(DOC, 'utf8');
  const start = text.indexOf(DOC_START);
  const end = text.indexOf(DOC_END);
  if (start < 0 || end < start) throw new Error(`BENCHMARKS.md has no ${DOC_START} … ${DOC_END} section to replace`);
  writeFileSync(DOC, `${text.slice(0, start)}${section}${text.slice(end + DOC_END.length)}`);
}

// ---- Main ---------------------------------------------------------------------------------

async function main(): Promise<void> {
  const began = performance.now();
  const machine = machineInfo();
  log(`mcp-statechart bench${quick ? ' (quick)' : ''}: ${describeMachine(machine)}`);
  const parts = PARTS.filter((part) => !only || only.has(part.name));
  if (parts.some((part) => part.name === 'lazy')) ensurePeers();
  mkdirSync(CACHE_DIR, { recursive: true });
  await bundleParts();
  log(`bundled the parts into ${path.relative(REPO_ROOT, BUILD_DIR)}`);
  if (argv.includes('--build-only')) return;

  const rows: BenchRow[] = [];
  const failures: string[] = [];
  for (const part of parts) {
    const started = performance.now();
    log(`\n== ${part.title}`);
    try {
      rows.push(...(await runPart(part)));
    } catch (error) {
      failures.push(`${part.name}: ${(error as Error).message}`);
      log(`part ${part.name} failed: ${(error as Error).message}`);
    }
    log(`   (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }

  const profiles = profile ? await profileMisses(rows) : [];
  const endLoad = machineInfo().loadAverage;
  const seconds = (performance.now() - began) / 1000;

  console.log(`\nmcp-statechart bench${quick ? ' (quick: fewer rounds, not for the record)' : ''} — ${describeMachine(machine)}`);
  console.log(`${busyNote(machine, endLoad).replace(/\*\*/g, '')}\n`);
  console.log(textTable(rows));
  const misses = rows.filter((row) => row.met === false);
  if (misses.length > 0) {
    console.log('\nMissed targets:');
    for (const row of misses) console.log(`  ${row.id}: ${missText(row)}`);
  }
  for (const report of profiles) console.log(`\nProfile of ${report.key} (${report.rows.join(', ')}):\n${report.summary}`);
  if (failures.length > 0) console.log(`\nParts that failed: ${failures.join('; ')}`);
  console.log(`\n${rows.length} rows, ${rows.filter((row) => row.met === true).length} targets met, ${misses.length} missed, in ${seconds.toFixed(0)} s.`);

  writeFileSync(path.join(CACHE_DIR, 'last-run.json'), JSON.stringify({ machine, endLoad, quick, seconds, rows, profiles }, null, 2));
  if (write) {
    writeDoc(resultsSection(machine, endLoad, rows, profiles, seconds));
    console.log('BENCHMARKS.md updated.');
  }
  if (failures.length > 0) process.exitCode = 1;
}

await main();
