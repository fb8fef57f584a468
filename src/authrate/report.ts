/**
 * The load tools' output, as OpenDJ/PingDS print it (docs/authrate.md): a table of `|`-separated
 * columns 8 wide, CSV with -S, or (--json, ours) one JSON object at the end; authrate's
 * search-then-bind adds a "bind time %" column, searchrate an "Entries/Srch" column.
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

/**
 * The column a tool adds after err/sec (wider than 8), to the third group, then titled
 * "Additional Statistics": authrate's search-then-bind "bind time %", searchrate's "Entries/Srch".
 */
export type ExtraColumn = 'bindTime' | 'entriesPerSearch';

const EXTRA_LABELS: Readonly<Record<ExtraColumn, string>> = { bindTime: 'bind time %', entriesPerSearch: 'Entries/Srch' };

const extraValue = (row: StatsRow, extra: ExtraColumn): string => (extra === 'bindTime' ? row.bindTimePercent : row.entriesPerSearch).toFixed(1);

function headerCells(percentiles: readonly number[], extra: ExtraColumn | undefined): string[][] {
  const additional = extra ? ['err/sec', EXTRA_LABELS[extra]] : ['err/sec'];
  return [['recent', 'average'], ['recent', 'average', ...percentiles.map(percentileLabel)], additional];
}

/** The five header lines, dashes first and last. */
export function tableHeader(percentiles: readonly number[], extra?: ExtraColumn): string[] {
  const groups = headerCells(percentiles, extra);
  const columns = line(groups);
  const dashes = '-'.repeat(columns.length);
  return [
    dashes,
    titles(groups, ['Throughput', 'Response Time', extra ? 'Additional' : '']),
    titles(groups, ['(ops/second)', '(milliseconds)', extra ? 'Statistics' : '']),
    columns,
    dashes,
  ];
}

function values(row: StatsRow, extra: ExtraColumn | undefined): string[][] {
  const additional = [row.errorsPerSecond.toFixed(1), ...(extra ? [extraValue(row, extra)] : [])];
  return [
    [row.recentThroughput.toFixed(1), row.averageThroughput.toFixed(1)],
    [row.recentResponseMs.toFixed(3), row.averageResponseMs.toFixed(3), ...row.percentilesMs.map((ms) => ms.toFixed(2))],
    additional,
  ];
}

export function tableRow(row: StatsRow, extra?: ExtraColumn): string {
  const groups = values(row, extra);
  if (extra) groups[2]![1] = groups[2]![1]!.padStart(EXTRA_LABELS[extra].length);
  return line(groups);
}

export function csvHeader(percentiles: readonly number[], extra?: ExtraColumn): string {
  return [
    'Time (seconds)', 'Recent throughput (ops/second)', 'Average throughput (ops/second)',
    'Recent response time (milliseconds)', 'Average response time (milliseconds)',
    ...percentiles.map((p) => `${percentileLabel(p)} response time (milliseconds)`),
    'Errors/second', ...(extra ? [EXTRA_LABELS[extra]] : []),
  ].join(',');
}

export function csvRow(row: StatsRow, extra?: ExtraColumn): string {
  return [row.elapsedSeconds.toFixed(1), ...values(row, extra).flat()].join(',');
}

const round3 = (ms: number): number => Math.round(ms * 1000) / 1000;

/** searchrate's summary says how many entries the searches returned, in all and per search. */
function entryFields(summary: StatsSummary, extra: ExtraColumn | undefined): Record<string, number> {
  if (extra !== 'entriesPerSearch') return {};
  const perSearch = summary.operations === 0 ? 0 : summary.entries / summary.operations;
  return { entries: summary.entries, entries_per_search: round3(perSearch) };
}

export function jsonSummary(summary: StatsSummary, extra?: ExtraColumn): string {
  return JSON.stringify({
    throughput: Math.round(summary.throughput * 10) / 10,
    operations: summary.operations,
    errors: summary.errors,
    errors_by_code: summary.errorsByCode,
    ...entryFields(summary, extra),
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
