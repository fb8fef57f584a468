/** bench-schemes' output: a Markdown table and its notes, and an SVG chart of throughput and tail latency per case. */
import { median } from '../authrate/stats.js';
import { caseLabel, formatParams, type CaseResult, type ServerResult } from './bench.js';

const fixed = (value: number, digits: number): string => value.toFixed(digits);
const thousands = (value: number): string => Math.round(value).toLocaleString('en-US');
const megabytes = (bytes: number): string => fixed(bytes / 2 ** 20, 0);

function perCpuSecond(result: ServerResult): string {
  return result.cpuSeconds > 0 ? thousands(result.summary.operations / result.cpuSeconds) : '-';
}

/** leveldap's binds/s over slapd's, round by round, those that can be divided (slapd bound at all). */
const ratios = (item: CaseResult): number[] => item.roundRatios.filter(Number.isFinite);

/** On the leveldap row: the median of the rounds' ratios (with one round, its ratio). */
function ratio(item: CaseResult, result: ServerResult): string {
  const rounds = ratios(item);
  if (result.server !== 'leveldap' || rounds.length === 0) return '';
  return `${fixed(median(rounds), 2)}x`;
}

/** "leveldap", "slapd", or "leveldap, bind cache 600 s". */
const serverLabel = (item: CaseResult, result: ServerResult): string =>
  result.server === 'leveldap' && item.bindCacheTtl ? `leveldap, bind cache ${item.bindCacheTtl} s` : result.server;

const share = (result: ServerResult, whole: number): string => (whole > 0 ? fixed(result.summary.throughput / whole, 2) : '-');
const rate = (perSecond: number): string => (perSecond >= 100 ? thousands(perSecond) : fixed(perSecond, 1));

function row(item: CaseResult, result: ServerResult): string[] {
  const { summary } = result;
  return [
    `{${item.scheme}}`, formatParams(item.params) || '-', fixed(item.verifyMicros, 1), serverLabel(item, result),
    thousands(summary.throughput), ratio(item, result), fixed(summary.averageMs, 2), fixed(summary.p999Ms, 2),
    fixed(summary.p9999Ms, 2), String(summary.errors), perCpuSecond(result), megabytes(result.residentBytes),
    megabytes(result.peakResidentBytes), thousands(item.users), rate(item.hashingLimit), share(result, item.hashingLimit),
    rate(item.allCoresRate), share(result, item.allCoresRate),
  ];
}

const HEADER = ['scheme', 'parameters', 'µs per verify', 'server', 'binds/s', 'vs slapd', 'average ms', 'p99.9 ms', 'p99.99 ms',
  'errors', 'binds per CPU-second', 'RSS MB', 'RSS MB, most seen', 'users', 'hashing limit/s', 'of limit', 'all cores, no server/s', 'of all cores'];
const RIGHT = new Set([2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);

export function markdownTable(results: readonly CaseResult[]): string {
  const rows = results.flatMap((item) => item.servers.map((result) => row(item, result)));
  const rule = HEADER.map((_, i) => (RIGHT.has(i) ? '---:' : '---'));
  return [HEADER, rule, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n') + '\n';
}

/** Above this, one verification alone kept more than one core busy (Argon2 with lanes). */
const SEVERAL_CORES = 1.25;
/** The scheme returning users are compared with: a salted digest, which the cache does not hold. */
const REFERENCE = 'SSHA512';

const leveldapOf = (item: CaseResult): ServerResult | undefined => item.servers.find((result) => result.server === 'leveldap');

/**
 * What the table cannot say in a cell: with rounds, each round's ratio to slapd; for a hash that
 * runs on several cores, the limit by CPU time; for the bind-cache rows, each against {SSHA512}
 * measured the same way (same TTL, users).
 */
export function tableNotes(results: readonly CaseResult[], cores: number): string[] {
  const notes: string[] = [];
  for (const item of results) {
    const rounds = ratios(item);
    if (rounds.length < 2) continue;
    notes.push(`${caseLabel(item)}: leveldap / slapd round by round ${rounds.map((value) => `${fixed(value, 2)}x`).join(', ')}`
      + ` (median ${fixed(median(rounds), 2)}x; the first server alternating; each row is that server's median round).`);
  }
  for (const item of results) {
    const cpu = item.verifyCpuMicros;
    const leveldap = leveldapOf(item);
    if (cpu === undefined || cpu <= SEVERAL_CORES * item.verifyMicros || !leveldap || item.bindCacheTtl) continue;
    const byCpu = (cores * 1e6) / cpu;
    notes.push(`${caseLabel(item)}: one verification alone took ${thousands(item.verifyMicros)} µs but ${thousands(cpu)} µs of CPU`
      + ` (it hashes on several cores at once), so cores x 1/verify time overstates what this machine can hash; by CPU time the`
      + ` limit is ${fixed(byCpu, 1)}/s, and leveldap's ${fixed(leveldap.summary.throughput, 1)} binds/s are ${fixed(leveldap.summary.throughput / byCpu, 2)} of it.`);
  }
  for (const item of results) {
    if (!item.bindCacheTtl || item.scheme.toUpperCase() === REFERENCE) continue;
    const reference = results.find((other) => other.scheme.toUpperCase() === REFERENCE && other.bindCacheTtl === item.bindCacheTtl && other.users === item.users);
    const mine = leveldapOf(item);
    const theirs = reference && leveldapOf(reference);
    if (!mine || !theirs || theirs.summary.throughput === 0) continue;
    notes.push(`Returning users (--bind-cache-ttl ${item.bindCacheTtl}, ${item.users} users binding again and again): ${caseLabel(item)}`
      + ` ${thousands(mine.summary.throughput)} binds/s, ${fixed(mine.summary.throughput / theirs.summary.throughput, 2)}x {${REFERENCE}}`
      + ` measured the same way (${thousands(theirs.summary.throughput)}).`);
  }
  return notes;
}

// The chart: two panels of grouped bars (binds/s, then p99.9 ms), one group per case, one bar per
// server. Written as SVG text: no charting library for two bar panels.

type Series = 'leveldap' | 'slapd' | 'leveldap, bind cache';
const COLOURS: Readonly<Record<Series, string>> = { leveldap: '#2f6fb0', slapd: '#a0a0a0', 'leveldap, bind cache': '#8cc084' };
const seriesOf = (item: CaseResult, result: ServerResult): Series =>
  result.server === 'leveldap' && item.bindCacheTtl ? 'leveldap, bind cache' : result.server;
const BAR = 28;
const GROUP_GAP = 36;
const PANEL_HEIGHT = 180;
const LEFT = 60;
const TOP = 40;
const LINE = 12;

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map((step) => step * power).find((candidate) => candidate >= value)!;
}

interface Scale {
  /** 0 at the panel's bottom, 1 at its top. */
  readonly at: (value: number) => number;
  readonly ticks: readonly number[];
  readonly log: boolean;
}

/** Linear from 0, or logarithmic (powers of ten) when the values span more than 20 to 1. */
function scaleFor(values: readonly number[]): Scale {
  const positive = values.filter((value) => value > 0);
  const max = Math.max(...positive, 0);
  const min = Math.min(...positive);
  if (positive.length === 0 || max / min <= 20) {
    const top = niceMax(max);
    return { at: (value) => value / top, ticks: [0, top / 2, top], log: false };
  }
  const low = Math.floor(Math.log10(min) - 1e-9);
  const high = Math.ceil(Math.log10(max));
  const at = (value: number) => (value <= 0 ? 0 : Math.max(0, (Math.log10(value) - low) / (high - low)));
  return { at, ticks: Array.from({ length: high - low + 1 }, (_, i) => 10 ** (low + i)), log: true };
}

interface Panel {
  readonly title: string;
  readonly value: (result: ServerResult) => number;
  readonly format: (value: number) => string;
}

/** The lines under a group: the parameters one a line ("1000 iterations" for PBKDF2's one), then the cache. */
function groupLines(item: CaseResult): string[] {
  const entries = Object.entries(item.params ?? {});
  const params = entries.length === 1 && entries[0]![0] === 'iterations' ? [`${entries[0]![1]} iterations`]
    : entries.map(([name, value]) => `${name}=${value}`);
  return [...params, ...(item.bindCacheTtl ? [`bind cache, ${item.users} users`] : [])];
}

function panel(results: readonly CaseResult[], spec: Panel, top: number, groupWidth: number): string[] {
  const scale = scaleFor(results.flatMap((item) => item.servers.map(spec.value)));
  const y = (value: number) => top + PANEL_HEIGHT - scale.at(value) * PANEL_HEIGHT;
  const title = `${spec.title}${scale.log ? ' (log scale)' : ''}`;
  const parts = [`<text x="${LEFT}" y="${top - 12}" font-weight="bold">${escapeXml(title)}</text>`];
  for (const tick of scale.ticks) {
    parts.push(`<line x1="${LEFT}" x2="${LEFT + groupWidth * results.length}" y1="${y(tick)}" y2="${y(tick)}" stroke="#ddd"/>`,
      `<text x="${LEFT - 6}" y="${y(tick) + 4}" text-anchor="end" font-size="10">${escapeXml(spec.format(tick))}</text>`);
  }
  results.forEach((item, group) => {
    const x0 = LEFT + group * groupWidth + GROUP_GAP / 2;
    item.servers.forEach((result, i) => {
      const value = spec.value(result);
      const x = x0 + i * BAR;
      parts.push(`<rect x="${x}" y="${y(value)}" width="${BAR - 4}" height="${top + PANEL_HEIGHT - y(value)}" fill="${COLOURS[seriesOf(item, result)]}"/>`,
        `<text x="${x + (BAR - 4) / 2}" y="${y(value) - 3}" text-anchor="middle" font-size="9">${escapeXml(spec.format(value))}</text>`);
    });
    const centre = x0 + (item.servers.length * BAR) / 2;
    const lines = groupLines(item).map((line) => `<tspan x="${centre}" dy="${LINE}">${escapeXml(line)}</tspan>`).join('');
    parts.push(`<text x="${centre}" y="${top + PANEL_HEIGHT + 14}" text-anchor="middle" font-size="10">{${escapeXml(item.scheme)}}${lines}</text>`);
  });
  return parts;
}

export function svgChart(results: readonly CaseResult[], caption: string): string {
  const serversPerCase = Math.max(1, ...results.map((item) => item.servers.length));
  const groupWidth = Math.max(serversPerCase * BAR + GROUP_GAP, 110);
  const width = Math.max(LEFT + groupWidth * results.length + 20, LEFT + caption.length * 6);
  const labelHeight = LINE * Math.max(1, ...results.map((item) => groupLines(item).length));
  const panelStep = PANEL_HEIGHT + 48 + labelHeight;
  const height = TOP + 2 * panelStep + 30;
  const names = [...new Set(results.flatMap((item) => item.servers.map((result) => seriesOf(item, result))))];
  const legend = names.map((name, i) => `<rect x="${LEFT + i * 160}" y="${height - 22}" width="12" height="12" fill="${COLOURS[name]}"/>`
    + `<text x="${LEFT + i * 160 + 16}" y="${height - 12}">${name}</text>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${LEFT}" y="18" font-size="11" fill="#555">${escapeXml(caption)}</text>`,
    ...panel(results, { title: 'binds per second', value: (r) => r.summary.throughput, format: thousands }, TOP + 20, groupWidth),
    ...panel(results, { title: 'p99.9 response time (ms)', value: (r) => r.summary.p999Ms, format: (v) => (v >= 10 ? thousands(v) : fixed(v, 1)) }, TOP + 20 + panelStep, groupWidth),
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
