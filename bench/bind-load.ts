/**
 * A bind load: C connections, each with one simple bind outstanding at a time (as authrate -f
 * does), for a given time, random users; latency per bind into an HDR histogram, and with
 * `intervalSeconds` also into one histogram per interval of the counted window (a time series:
 * bench-scale's first 10 s against the rest). A library for bench-binds and bench-scale, not run by itself.
 */
import net from 'node:net';
import hdr from 'hdr-histogram-js';
import { FrameReader } from '../src/protocol/index.js';
import { encodeSimpleBind, readResult } from '../src/authrate/wire.js';

export interface BindTarget {
  readonly host: string;
  readonly port: number;
  /** The bind DN of user n. */
  readonly dn: (n: number) => string;
  readonly users: number;
  readonly password: Buffer;
}

export interface LoadOptions {
  readonly connections: number;
  readonly seconds: number;
  /** Operations before this many seconds are not counted. */
  readonly warmUpSeconds: number;
  /** Called when counting starts and when it stops (e.g. to read a server's CPU time over exactly that window). */
  readonly onCounting?: (counting: boolean) => void;
  /** Also tally each answer in the interval of the counted window it came in: LoadResult.intervals. */
  readonly intervalSeconds?: number;
}

/** The answers of one stretch of the counted window, by the time each came in. */
export interface Interval {
  operations: number;
  readonly errors: Record<number, number>;
  /** Its length (the last one may be a little longer or shorter than the others). */
  seconds: number;
  readonly histogram: hdr.Histogram;
}

export interface LoadResult {
  readonly operations: number;
  readonly errors: Readonly<Record<number, number>>;
  readonly seconds: number;
  readonly throughput: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  /** With LoadOptions.intervalSeconds: the counted window cut into intervals of that length, in order. */
  readonly intervals?: readonly Interval[];
}

interface Tally {
  operations: number;
  errors: Record<number, number>;
  readonly histogram: hdr.Histogram;
  counting: boolean;
  running: boolean;
  /** With intervalSeconds: when counting started (performance.now()), and the intervals. */
  countingSince: number;
  readonly intervals: Interval[];
  readonly intervalMs: number;
}

const newHistogram = (): hdr.Histogram =>
  hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });

const newInterval = (seconds: number): Interval => ({ operations: 0, errors: {}, seconds, histogram: newHistogram() });

/** The intervals of a counted window of `seconds`, each `intervalSeconds` long but the last. */
function intervalsOf(seconds: number, intervalSeconds: number | undefined): Interval[] {
  if (intervalSeconds === undefined) return [];
  if (!(intervalSeconds > 0)) throw new Error(`intervalSeconds must be positive, not ${intervalSeconds}`);
  const count = Math.max(1, Math.ceil(seconds / intervalSeconds));
  return Array.from({ length: count }, (_, i) => newInterval(Math.min(intervalSeconds, seconds - i * intervalSeconds)));
}

/** Tallies a counted answer in the interval it came in (the last one takes any that come after the window). */
function recordInterval(tally: Tally, code: number, sentAt: number): void {
  const last = tally.intervals.length - 1;
  if (last < 0) return;
  const interval = tally.intervals[Math.min(last, Math.floor((performance.now() - tally.countingSince) / tally.intervalMs))]!;
  interval.operations += 1;
  recordAnswer(interval, code, sentAt);
}

/** The intervals as one (their answers together, their seconds added). */
export function mergeIntervals(intervals: readonly Interval[]): Interval {
  const merged = newInterval(0);
  for (const interval of intervals) {
    merged.operations += interval.operations;
    merged.seconds += interval.seconds;
    for (const [code, count] of Object.entries(interval.errors)) merged.errors[Number(code)] = (merged.errors[Number(code)] ?? 0) + count;
    merged.histogram.add(interval.histogram);
  }
  return merged;
}

/** Throughput and latency percentiles of a tally of answers over `seconds`. */
export function summarize(interval: Omit<Interval, 'seconds'>, seconds: number): LoadResult {
  const { histogram } = interval;
  const ms = (percentile: number) => histogram.getValueAtPercentile(percentile) / 1000;
  return {
    operations: interval.operations, errors: interval.errors, seconds, throughput: seconds > 0 ? interval.operations / seconds : 0,
    p50Ms: ms(50), p99Ms: ms(99), p999Ms: ms(99.9), maxMs: histogram.maxValue / 1000,
  };
}

/** A counted answer: a non-zero result code tallied by code, and the time since the request (sentAt, performance.now()) in µs. */
export function recordAnswer(tally: { readonly errors: Record<number, number>; readonly histogram: hdr.Histogram }, code: number, sentAt: number): void {
  if (code !== 0) tally.errors[code] = (tally.errors[code] ?? 0) + 1;
  tally.histogram.recordValue(Math.max(1, Math.round((performance.now() - sentAt) * 1000)));
}

/** A TCP connection to the server, Nagle off (each request is one small write). */
export function connect(target: { readonly host: string; readonly port: number }): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: target.host, port: target.port }, () => resolve(socket));
    socket.once('error', reject);
    socket.setNoDelay(true);
  });
}

/** One anonymous bind on a new connection: resolves with its result code once answered, then closes it. */
function anonymousBind(target: { readonly host: string; readonly port: number }): Promise<number> {
  return connect(target).then((socket) => new Promise<number>((resolve, reject) => {
    const frames = new FrameReader({ maxBytes: 1 << 20 });
    socket.on('data', (chunk: Buffer) => {
      const [frame] = frames.push(chunk);
      if (!frame) return;
      socket.destroy();
      resolve(readResult(frame).code);
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('the server closed the connection before answering a bind')));
    socket.write(encodeSimpleBind(1, '', Buffer.alloc(0)));
  }));
}

/**
 * Resolves once `connections` connections opened at once have each had an anonymous bind answered
 * (no entry read): a server whose port accepts connections before every serving thread is ready
 * (leveldap's threads share sockets bound before they start) is then serving on all of them, as
 * far as `connections` connections spread over its sockets can tell. Rejects after `timeoutMs`.
 */
export async function waitUntilAnswering(target: { readonly host: string; readonly port: number }, connections: number, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to ${connections} anonymous binds in ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const codes = await Promise.race([Promise.all(Array.from({ length: connections }, () => anonymousBind(target))), timeout]);
    const failed = codes.find((code) => code !== 0);
    if (failed !== undefined) throw new Error(`an anonymous bind failed with result code ${failed}`);
  } finally {
    clearTimeout(timer);
  }
}

/** One connection's loop: bind, wait for the response, record, bind again. */
function drive(socket: net.Socket, target: BindTarget, tally: Tally): Promise<void> {
  const frames = new FrameReader({ maxBytes: 1 << 20 });
  let messageId = 0;
  let sentAt = 0;
  const next = (): void => {
    if (!tally.running) {
      socket.end();
      return;
    }
    messageId += 1;
    sentAt = performance.now();
    socket.write(encodeSimpleBind(messageId, target.dn(Math.floor(Math.random() * target.users)), target.password));
  };
  socket.on('data', (chunk: Buffer) => {
    for (const frame of frames.push(chunk)) {
      const { code } = readResult(frame);
      if (tally.counting) {
        tally.operations += 1;
        recordAnswer(tally, code, sentAt);
        recordInterval(tally, code, sentAt);
      }
      next();
    }
  });
  return new Promise((resolve) => {
    socket.on('close', () => resolve());
    next();
  });
}

/**
 * Runs `options.connections` loops of `drive` on connections to `target`: not counted during the
 * warm-up, counted for `options.seconds`, then stopped; resolves with the counted seconds once
 * every loop has ended.
 */
export async function countedRun<T extends { counting: boolean; running: boolean }>(
  target: { readonly host: string; readonly port: number }, options: LoadOptions, tally: T,
  drive: (socket: net.Socket, tally: T) => Promise<void>,
): Promise<number> {
  const sockets = await Promise.all(Array.from({ length: options.connections }, () => connect(target)));
  const done = Promise.all(sockets.map((socket) => drive(socket, tally)));
  await new Promise((resolve) => setTimeout(resolve, options.warmUpSeconds * 1000));
  tally.counting = true;
  options.onCounting?.(true);
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, options.seconds * 1000));
  tally.counting = false;
  options.onCounting?.(false);
  const seconds = (performance.now() - start) / 1000;
  tally.running = false;
  await done;
  return seconds;
}

export async function runBindLoad(target: BindTarget, options: LoadOptions): Promise<LoadResult> {
  const intervals = intervalsOf(options.seconds, options.intervalSeconds);
  const tally: Tally = {
    operations: 0, errors: {}, histogram: newHistogram(), counting: false, running: true,
    countingSince: 0, intervals, intervalMs: (options.intervalSeconds ?? 0) * 1000,
  };
  const onCounting = (counting: boolean) => {
    if (counting) tally.countingSince = performance.now();
    options.onCounting?.(counting);
  };
  const seconds = await countedRun(target, { ...options, onCounting }, tally, (socket) => drive(socket, target, tally));
  const last = intervals.at(-1);
  if (last) last.seconds = seconds - (intervals.length - 1) * options.intervalSeconds!;
  return { ...summarize(tally, seconds), ...(last && { intervals }) };
}
