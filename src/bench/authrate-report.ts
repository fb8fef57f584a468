/**
 * authrate's output, as OpenDJ/PingDS print it (formats.md 2.2): a table of `|`-separated
 * columns 8 wide, CSV with -S, or (--json, ours) one JSON object at the end.
 */
import type { StatsRow, StatsSummary } from './authrate-stats.js';

const WIDTH = 8;

const cell = (text: string): string => text.padStart(WIDTH);

/** A group's inside: " c1 c2 ... " (9 characters a column, one more for the closing space). */
const groupWidth = (columns: number): number => (WIDTH + 1) * columns + 1;

function centred(text: string, width: number): string {
  const left = Math.ceil((width - text.length) / 2);
  return `${' '.repeat(Math.max(0, left))}${text}`.padEnd(width);
}

function line(groups: readonly (readonly string[])[]): string {
  return `|${groups.map((cells) => ` ${cells.map(cell).join(' ')} |`).join('')}`;
}

function titles(groups: readonly (readonly string[])[], titlesOf: readonly string[]): string {
  return `|${groups.map((cells, i) => `${centred(titlesOf[i]!, groupWidth(cells.length))}|`).join('')}`;
}

export function percentileLabel(percentile: number): string {
  return `${percentile}%`;
}

function headerCells(percentiles: readonly number[]): string[][] {
  return [['recent', 'average'], ['recent', 'average', ...percentiles.map(percentileLabel)], ['err/sec']];
}

/** The five header lines, dashes first and last. */
export function tableHeader(percentiles: readonly number[]): string[] {
  const groups = headerCells(percentiles);
  const columns = line(groups);
  const dashes = '-'.repeat(columns.length);
  return [
    dashes,
    titles(groups, ['Throughput', 'Response Time', '']),
    titles(groups, ['(ops/second)', '(milliseconds)', '']),
    columns,
    dashes,
  ];
}

function values(row: StatsRow): string[][] {
  return [
    [row.recentThroughput.toFixed(1), row.averageThroughput.toFixed(1)],
    [row.recentResponseMs.toFixed(3), row.averageResponseMs.toFixed(3), ...row.percentilesMs.map((ms) => ms.toFixed(2))],
    [row.errorsPerSecond.toFixed(1)],
  ];
}

export function tableRow(row: StatsRow): string {
  return line(values(row));
}

export function csvHeader(percentiles: readonly number[]): string {
  return [
    'Time (seconds)', 'Recent throughput (ops/second)', 'Average throughput (ops/second)',
    'Recent response time (milliseconds)', 'Average response time (milliseconds)',
    ...percentiles.map((p) => `${percentileLabel(p)} response time (milliseconds)`),
    'Errors/second',
  ].join(',');
}

export function csvRow(row: StatsRow): string {
  return [row.elapsedSeconds.toFixed(1), ...values(row).flat()].join(',');
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
