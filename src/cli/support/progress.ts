/**
 * Import progress: a bar with rate and ETA on a terminal (cli-progress), nothing otherwise.
 * The bar follows bytes read when the input size is known, else counts entries.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  entry(): void;
  bytes(count: number): void;
  stop(): void;
}

const SILENT: Progress = { entry: () => {}, bytes: () => {}, stop: () => {} };

export function createProgress(totalBytes: number | undefined, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return SILENT;
  const format = totalBytes
    ? 'importing [{bar}] {percentage}% | {entries} entries | {rate} entries/s | ETA {eta_formatted}'
    : 'importing {entries} entries | {rate} entries/s';
  const bar = new cliProgress.SingleBar({ format, stream, hideCursor: true, etaBuffer: 50 }, cliProgress.Presets.shades_classic);
  const start = Date.now();
  let entries = 0;
  let read = 0;
  bar.start(totalBytes ?? 1, 0, { entries: 0, rate: 0 });
  const payload = () => ({ entries, rate: Math.round(entries / Math.max((Date.now() - start) / 1000, 0.001)) });
  return {
    entry: () => { entries += 1; if (entries % 200 === 0) bar.update(read, payload()); },
    bytes: (count) => { read += count; },
    stop: () => { bar.update(totalBytes ?? 1, payload()); bar.stop(); },
  };
}
