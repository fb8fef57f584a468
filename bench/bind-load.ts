/**
 * A bind load: C connections, each with one simple bind outstanding at a time (as authrate -f
 * does), for a given time, random users; latency per bind into an HDR histogram.
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
}

interface Tally {
  operations: number;
  errors: Record<number, number>;
  readonly histogram: hdr.Histogram;
  counting: boolean;
  running: boolean;
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
  const histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
  const tally: Tally = { operations: 0, errors: {}, histogram, counting: false, running: true };
  const seconds = await countedRun(target, options, tally, (socket) => drive(socket, target, tally));
  const ms = (percentile: number) => histogram.getValueAtPercentile(percentile) / 1000;
  return {
    operations: tally.operations, errors: tally.errors, seconds, throughput: tally.operations / seconds,
    p50Ms: ms(50), p99Ms: ms(99), p999Ms: ms(99.9), maxMs: histogram.maxValue / 1000,
  };
}
