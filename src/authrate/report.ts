/**
 * authrate's output, as OpenDJ/PingDS print it (docs/authrate.md): a table of `|`-separated
 * columns 8 wide, CSV with -S, or (--json, ours) one JSON object at the end.
 */
import type { StatsRow, StatsSummary } from './stats.js';

const WIDTH = 8;

const cell = (text: string): string => text.padStart(WIDTH);

/** A group's inside: " c1 c2 ... " (a space and 8 characters a column, or the label's length if longer; one more for the closing space). */
const groupWidth = (cells: readonly string[]): number => cells.reduce((sum, text) => sum + Math.max(WIDTH, text.length) + 1, 1);

function centred(text: string, width: number): string {
  const left = Math.ceil((width - text.length) / 2);
  return `${' '.repeat(Math.max(0, left))}${text}`.padEnd(width);
}

function line(groups: readonly (readonly string[])[]): string {
  return `|${groups.map((cells) => ` ${cells.map(cell).join(' ')} |`).join('')}`;
}

function titles(groups: readonly (readonly string[])[], titlesOf: readonly string[]): string {
  return `|${groups.map((cells, i) => `${centred(titlesOf[i]!, groupWidth(cells))}|`).join('')}`;
}

function percentileLabel(percentile: number): string {
  return `${percentile}%`;
}

/** Search-then-bind adds a "bind time %" column (wider than 8) to the third group, then titled "Additional Statistics". */
const BIND_TIME = 'bind time %';

function headerCells(percentiles: readonly number[], searchThenBind: boolean): string[][] {
  const additional = searchThenBind ? ['err/sec', BIND_TIME] : ['err/sec'];
  return [['recent', 'average'], ['recent', 'average', ...percentiles.map(percentileLabel)], additional];
}

/** The five header lines, dashes first and last. */
export function tableHeader(percentiles: readonly number[], searchThenBind = false): string[] {
  const groups = headerCells(percentiles, searchThenBind);
  const columns = line(groups);
  const dashes = '-'.repeat(columns.length);
  return [
    dashes,
    titles(groups, ['Throughput', 'Response Time', searchThenBind ? 'Additional' : '']),
    titles(groups, ['(ops/second)', '(milliseconds)', searchThenBind ? 'Statistics' : '']),
    columns,
    dashes,
  ];
}

function values(row: StatsRow, searchThenBind: boolean): string[][] {
  const additional = [row.errorsPerSecond.toFixed(1), ...(searchThenBind ? [row.bindTimePercent.toFixed(1)] : [])];
  return [
    [row.recentThroughput.toFixed(1), row.averageThroughput.toFixed(1)],
    [row.recentResponseMs.toFixed(3), row.averageResponseMs.toFixed(3), ...row.percentilesMs.map((ms) => ms.toFixed(2))],
    additional,
  ];
}

export function tableRow(row: StatsRow, searchThenBind = false): string {
  const groups = values(row, searchThenBind);
  if (searchThenBind) groups[2]![1] = groups[2]![1]!.padStart(BIND_TIME.length);
  return line(groups);
}

export function csvHeader(percentiles: readonly number[], searchThenBind = false): string {
  return [
    'Time (seconds)', 'Recent throughput (ops/second)', 'Average throughput (ops/second)',
    'Recent response time (milliseconds)', 'Average response time (milliseconds)',
    ...percentiles.map((p) => `${percentileLabel(p)} response time (milliseconds)`),
    'Errors/second', ...(searchThenBind ? ['bind time %'] : []),
  ].join(',');
}

export function csvRow(row: StatsRow, searchThenBind = false): string {
  return [row.elapsedSeconds.toFixed(1), ...values(row, searchThenBind).flat()].join(',');
}

const round3 = (ms: number): number => Math.round(ms * 1000) / 1000;

export function jsonSummary(summary: StatsSummary): string {
  return JSON.stringify({
    throughput: Math.round(summary.throughput * 10) / 10,
    operations: summary.operations,
    errors: summary.errors,
    errors_by_code: summary.errorsByCode,
    p50_ms: round3(summary.p50Ms),
    p99_ms: round3(summary.p99Ms),
    p999_ms: round3(summary.p999Ms),
    p9999_ms: round3(summary.p9999Ms),
    p99999_ms: round3(summary.p99999Ms),
    max_ms: round3(summary.maxMs),
  });
}

export function warmUpMessage(seconds: number): string {
  return `Warming up for ${seconds} seconds...`;
}
