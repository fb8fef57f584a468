/**
 * A search load: C connections, each bound once and then with one search outstanding at a time,
 * for a given time; each search's latency (request to SearchResultDone) into an HDR histogram,
 * and the entries it returned counted. Responses are framed and their tags read, nothing more.
 */
import type net from 'node:net';
import hdr from 'hdr-histogram-js';
import { FrameReader } from '../src/protocol/index.js';
import { countedRun, recordAnswer, type LoadOptions } from './bind-load.js';
import { cpuSeconds } from '../src/harness/process-stats.js';
import { SEARCH_DONE, SEARCH_ENTRY, encodeSearch, encodeSimpleBind, readCode, readMessage, type SearchSpec } from '../src/authrate/wire.js';
import { rotated } from './rotation.js';

export interface SearchTarget {
  readonly host: string;
  readonly port: number;
  readonly bindDn: string;
  readonly password: Buffer;
  /** The next search to send (base, scope, BER filter, attributes). */
  readonly next: () => SearchSpec;
}

/** Connections, warm-up, counted seconds: as for the bind load. */
export type SearchLoadOptions = LoadOptions;

export interface SearchLoadResult {
  readonly searches: number;
  readonly entries: number;
  readonly errors: Readonly<Record<number, number>>;
  readonly seconds: number;
  readonly throughput: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
}

interface Tally {
  searches: number;
  entries: number;
  errors: Record<number, number>;
  readonly histogram: hdr.Histogram;
  counting: boolean;
  running: boolean;
}

/** One connection's loop: bind, then search, wait for the done, record, search again. */
function drive(socket: net.Socket, target: SearchTarget, tally: Tally): Promise<void> {
  const frames = new FrameReader({ maxBytes: 1 << 24 });
  let messageId = 1;
  let sentAt = 0;
  let entries = 0;
  const next = (): void => {
    if (!tally.running) {
      socket.end();
      return;
    }
    messageId += 1;
    entries = 0;
    sentAt = performance.now();
    socket.write(encodeSearch(messageId, target.next()));
  };
  const done = (frame: Buffer, content: number): void => {
    if (messageId === 1) {
      const code = readCode(frame, content);
      if (code !== 0) throw new Error(`the bind as ${target.bindDn} answered ${code}`);
    } else if (tally.counting) {
      const code = readCode(frame, content);
      tally.searches += 1;
      tally.entries += entries;
      recordAnswer(tally, code, sentAt);
    }
    next();
  };
  socket.on('data', (chunk: Buffer) => {
    for (const frame of frames.push(chunk)) {
      const { tag, content } = readMessage(frame);
      if (tag === SEARCH_ENTRY) entries += 1;
      else if (tag === SEARCH_DONE || messageId === 1) done(frame, content);
    }
  });
  return new Promise((resolve) => {
    socket.on('close', () => resolve());
    socket.write(encodeSimpleBind(1, target.bindDn, target.password));
  });
}

export async function runSearchLoad(target: SearchTarget, options: SearchLoadOptions): Promise<SearchLoadResult> {
  const histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: 3 });
  const tally: Tally = { searches: 0, entries: 0, errors: {}, histogram, counting: false, running: true };
  const seconds = await countedRun(target, options, tally, (socket) => drive(socket, target, tally));
  const ms = (percentile: number) => histogram.getValueAtPercentile(percentile) / 1000;
  return {
    searches: tally.searches, entries: tally.entries, errors: tally.errors, seconds, throughput: tally.searches / seconds,
    p50Ms: ms(50), p99Ms: ms(99), p999Ms: ms(99.9),
  };
}

/** A search load run with the server's CPU seconds over exactly its counted window (from /proc). */
export type MeasuredSearches = SearchLoadResult & { readonly cpu: number };

export async function measureSearches(target: SearchTarget, pid: number, options: Omit<SearchLoadOptions, 'onCounting'>): Promise<MeasuredSearches> {
  let cpuAtStart = 0;
  let cpu = 0;
  const result = await runSearchLoad(target, {
    ...options,
    onCounting: (counting) => {
      if (counting) cpuAtStart = cpuSeconds(pid);
      else cpu = cpuSeconds(pid) - cpuAtStart;
    },
  });
  return { ...result, cpu };
}

/** `rounds` runs of each server, each round starting one server later (rotation.ts); the best (highest throughput) of each kept, by label. */
export async function bestOfRounds<S extends { readonly label: string }>(
  servers: readonly S[], rounds: number, run: (server: S) => Promise<MeasuredSearches>, progress: (text: string) => void,
): Promise<Map<string, MeasuredSearches>> {
  const best = new Map<string, MeasuredSearches>();
  for (let round = 1; round <= rounds; round += 1) {
    for (const server of rotated(servers, round - 1)) {
      progress(`round ${round}, ${server.label}`);
      const result = await run(server);
      const previous = best.get(server.label);
      if (!previous || result.throughput > previous.throughput) best.set(server.label, result);
    }
  }
  return best;
}
