/**
 * The load of authrate, searchrate and modrate: one worker per connection, one operation
 * outstanding at a time (OpenDJ's -t is not offered), each iteration what the tool's
 * {@link Workload} does (authrate.ts: a bind, or a search then a bind; searchrate.ts: a search;
 * modrate.ts: a modify) with the template arguments of that iteration. With -f a worker keeps its
 * connection (the workload's `opened` runs once on it: searchrate's and modrate's bind); without,
 * every iteration connects, runs `opened` and the operation, unbinds and closes, timed as one
 * operation. With -M each worker is paced and a response time runs from the operation's intended
 * start, so a slow server cannot hide its queueing (no coordinated omission).
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadConfig } from './options.js';
import { LdapConnection, CONNECT_ERROR, ConnectionError } from './connection.js';
import { Stats, type StatsRow, type StatsSummary } from './stats.js';

/** What an iteration reports beside its result code; one per worker, zeroed before each iteration. */
export interface Tally {
  /** The time its search took, when it searched before the operation timed (authrate's search-then-bind). */
  searchMs: number;
  /** The entries its search returned (searchrate). */
  entries: number;
}

/** What a worker does. */
export interface Workload {
  /** On each new connection, before its first iteration; a non-zero result code is the iteration's, and the connection is closed. */
  opened?(connection: LdapConnection): Promise<number>;
  /** One iteration with its -g arguments; its result code. */
  iterate(connection: LdapConnection, args: readonly string[], tally: Tally): Promise<number>;
}

/** Makes each worker's workload (anything with state of its own, such as inc(), is the worker's). */
export type WorkloadFactory = () => Workload;

/** OpenDJ stops trying to catch up on a missed pace once this far behind. */
const MAX_LAG_MS = 60_000;
/** After a stop, how long in-flight binds may take before their connections are cut. */
const STOP_GRACE_MS = 2_000;

export interface LoadListener {
  warmingUp?(seconds: number): void;
  /** Counting starts (after the warm-up). */
  started?(): void;
  /** Every -i seconds. */
  interval?(row: StatsRow): void;
}

export interface LoadRun {
  /** Stops the run (Ctrl-C); `done` then resolves as usual. */
  stop(): void;
  /** The last (partial) interval's row and the run's summary; `lost`: the run stopped because no connection could be opened. */
  readonly done: Promise<{ final: StatsRow; summary: StatsSummary; lost?: ConnectionError }>;
}

/** What the workers share. */
interface Control {
  readonly config: LoadConfig;
  readonly workload: WorkloadFactory;
  readonly stats: Stats;
  readonly abort: AbortController;
  readonly connections: Set<LdapConnection>;
  counting: boolean;
  /** Why the run stopped when a connection could not be opened (the server gone, out of descriptors). */
  lost?: ConnectionError;
}

/** Listeners on the stop signal besides the workers' pauses (drive's stop and end time, with room to spare). */
const RUN_LISTENERS = 8;

const running = (control: Control): boolean => !control.abort.signal.aborted;

/** Waits, or less if the run stops first. */
async function pause(ms: number, control: Control): Promise<void> {
  if (ms <= 0) return;
  await sleep(ms, undefined, { signal: control.abort.signal }).catch(() => undefined);
}

/** The intended start time of each next operation at `opsPerSecond`, or "now" when unthrottled. */
function pacer(opsPerSecond: number, control: Control): () => Promise<number> {
  if (opsPerSecond <= 0) return async () => performance.now();
  const period = 1000 / opsPerSecond;
  let next = performance.now();
  return async () => {
    const now = performance.now();
    if (now - next > MAX_LAG_MS) next = now;
    const intended = next;
    next += period;
    await pause(intended - now, control);
    return intended;
  };
}

/** The template arguments of each next iteration, from this worker's own generators. */
function argumentSource(config: LoadConfig): () => string[] {
  const generators = config.generators.map((factory) => factory());
  return () => generators.map((next) => next());
}

class Worker {
  #connection: LdapConnection | undefined;
  #counted = 0;
  readonly #nextArguments: () => string[];
  readonly #workload: Workload;
  readonly #tally: Tally = { searchMs: 0, entries: 0 };
  readonly #nextStart: () => Promise<number>;

  constructor(private readonly control: Control, private readonly quota: number) {
    this.#nextArguments = argumentSource(control.config);
    this.#workload = control.workload();
    this.#nextStart = pacer(control.config.targetThroughput / control.config.connections, control);
  }

  async run(): Promise<void> {
    while (running(this.control) && (this.quota === 0 || this.#counted < this.quota)) {
      const setup = await this.#kept();
      if (setup !== undefined) {
        this.#record(setup.started, setup.code);
        continue;
      }
      const intended = await this.#nextStart();
      if (!running(this.control)) break;
      const code = await this.#iteration();
      this.#record(intended, code);
    }
    this.#close();
  }

  #record(since: number, code: number): void {
    if (!this.control.counting || !running(this.control)) return;
    this.control.stats.record(performance.now() - since, code, this.#tally.searchMs, this.#tally.entries);
    this.#counted += 1;
  }

  /**
   * With -f (-F), the kept connection is opened (and bound, by searchrate and modrate) before an
   * operation's time starts, as OpenDJ opens its connections before its workers run: the setup
   * is no operation's time (it was the first one's: a p99.99 of 300 ms against slow binds; review
   * 2026-12-08). Undefined when the connection is there; else the code that counts as an
   * iteration of its own (the bind refused, the connection lost), with when its setup started.
   */
  async #kept(): Promise<{ readonly started: number; readonly code: number } | undefined> {
    if (!this.control.config.keepConnectionsOpen || this.#connection) return undefined;
    const started = performance.now();
    this.#resetTally();
    try {
      const opened = await this.#opened();
      return typeof opened === 'number' ? { started, code: opened } : undefined;
    } catch (error) {
      return { started, code: this.#failed(error) };
    }
  }

  /** One iteration of the workload; its result code, or 91 when the connection fails. */
  async #iteration(): Promise<number> {
    const args = this.#nextArguments();
    this.#resetTally();
    try {
      const connection = this.#connection ?? (await this.#opened());
      if (typeof connection === 'number') return connection;
      const code = await this.#workload.iterate(connection, args, this.#tally);
      if (!this.control.config.keepConnectionsOpen) this.#close();
      return code;
    } catch (error) {
      return this.#failed(error);
    }
  }

  #resetTally(): void {
    this.#tally.searchMs = 0;
    this.#tally.entries = 0;
  }

  /** A failure while connecting or running: the connection is dropped; a connection error is the iteration's 91, anything else goes on up. */
  #failed(error: unknown): number {
    this.#drop();
    if (!(error instanceof ConnectionError)) throw error;
    return CONNECT_ERROR;
  }

  /**
   * #open, and when no connection can be opened at all the run stops, as OpenDJ's tools stop
   * ("cannot get connection"): counting failed connects as fast operations made a server that
   * went away look like a fast one, and the run went on, exit status 0 (review 2026-12-08).
   */
  async #opened(): Promise<LdapConnection | number> {
    try {
      return await this.#open();
    } catch (error) {
      if (error instanceof ConnectionError && !this.#connection) {
        this.control.lost ??= error;
        this.control.abort.abort();
      }
      throw error;
    }
  }

  /** A new connection, after the workload's `opened`; its result code (the connection closed) if that failed. */
  async #open(): Promise<LdapConnection | number> {
    const connection = await LdapConnection.open(this.control.config);
    this.#connection = connection;
    this.control.connections.add(connection);
    const code = (await this.#workload.opened?.(connection)) ?? 0;
    if (code === 0) return connection;
    this.#close();
    return code;
  }

  #close(): void {
    this.#connection?.unbindAndClose();
    this.#forget();
  }

  #drop(): void {
    this.#connection?.destroy();
    this.#forget();
  }

  #forget(): void {
    if (this.#connection) this.control.connections.delete(this.#connection);
    this.#connection = undefined;
  }
}

/** Splits -m over the workers so that the total is exactly m (0 = no limit). */
export function quotas(maxIterations: number, workers: number): number[] {
  const base = Math.floor(maxIterations / workers);
  return Array.from({ length: workers }, (_, i) => (maxIterations === 0 ? 0 : base + (i < maxIterations % workers ? 1 : 0)));
}

/**
 * Checks that the server can be reached at all (OpenDJ's initial connection); throws
 * ConnectionError if not, which the tools turn into exit status 91.
 */
export async function probe(config: LoadConfig): Promise<void> {
  const connection = await LdapConnection.open(config);
  connection.unbindAndClose();
}

async function warmUp(control: Control, listener: LoadListener): Promise<void> {
  const seconds = control.config.warmUpDuration;
  if (seconds > 0) {
    listener.warmingUp?.(seconds);
    await pause(seconds * 1000, control);
  }
  control.stats.reset();
  control.counting = true;
  listener.started?.();
}

/** Resolves when the workers finish or, after a stop, when the grace period ends (cutting what is left). */
async function finish(workers: Promise<unknown>, control: Control): Promise<void> {
  const stopped = new Promise<void>((resolve) => control.abort.signal.addEventListener('abort', () => resolve(), { once: true }));
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([workers, stopped]);
    await Promise.race([workers, new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
  } finally {
    clearTimeout(timer);
    // Whatever happened (a worker that failed too): no connection may keep the process alive.
    for (const connection of control.connections) connection.destroy();
  }
}

/** The time the run stopped (abort), or now if it ran out of work. */
function stopTime(control: Control): () => number {
  let stoppedAt: number | undefined;
  control.abort.signal.addEventListener('abort', () => (stoppedAt ??= performance.now()), { once: true });
  return () => stoppedAt ?? performance.now();
}

/**
 * A row every -i seconds; the tick that reaches -d stops the run instead, so that its row is the
 * final line rather than a line followed by an empty one.
 */
function startTicker(control: Control, listener: LoadListener): NodeJS.Timeout {
  const { config, stats } = control;
  const startedAt = performance.now();
  const deadline = config.maxDuration * 1000;
  return setInterval(() => {
    if (deadline > 0 && performance.now() - startedAt >= deadline - 1) control.abort.abort();
    else listener.interval?.(stats.row(config.percentiles));
  }, config.statInterval * 1000);
}

async function drive(control: Control, listener: LoadListener): Promise<{ final: StatsRow; summary: StatsSummary; lost?: ConnectionError }> {
  const { config, stats } = control;
  const end = stopTime(control);
  const workers = Promise.all(quotas(config.maxIterations, config.connections).map((quota) => new Worker(control, quota).run()));
  workers.catch(() => control.abort.abort());
  await warmUp(control, listener);
  const ticker = startTicker(control, listener);
  const deadline = config.maxDuration > 0 ? setTimeout(() => control.abort.abort(), config.maxDuration * 1000) : undefined;
  try {
    await finish(workers, control);
  } finally {
    clearInterval(ticker);
    clearTimeout(deadline);
  }
  const now = Math.min(end(), performance.now());
  const result = { final: stats.row(config.percentiles, now), summary: stats.summary(now) };
  control.abort.abort();
  await workers;
  return control.lost ? { ...result, lost: control.lost } : result;
}

/** Starts the load (call {@link probe} first). */
export function startLoad(config: LoadConfig, workload: WorkloadFactory, listener: LoadListener = {}): LoadRun {
  const control: Control = {
    config, workload, stats: new Stats(), abort: new AbortController(), connections: new Set(), counting: false,
  };
  // Each worker waits on the signal at most once at a time (a paced pause), the run itself a few times more.
  setMaxListeners(config.connections + RUN_LISTENERS, control.abort.signal);
  return { stop: () => control.abort.abort(), done: drive(control, listener) };
}
