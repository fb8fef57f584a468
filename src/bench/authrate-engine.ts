/**
 * authrate's load: one worker per connection, one bind outstanding at a time (OpenDJ AuthRate
 * has no -t). With -f a worker keeps its connection and rebinds; without, every iteration
 * connects, binds, unbinds and closes. With -M each worker is paced and a response time runs
 * from the operation's intended start, so a slow server cannot hide its queueing (no
 * coordinated omission).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthrateConfig } from './authrate-options.js';
import { BindConnection, CONNECT_ERROR, ConnectionError } from './authrate-connection.js';
import { Stats, type StatsRow, type StatsSummary } from './authrate-stats.js';

const INVALID_PASSWORD = Buffer.from('invalid-password', 'utf8');
/** OpenDJ stops trying to catch up on a missed pace once this far behind. */
const MAX_LAG_MS = 60_000;
/** After a stop, how long in-flight binds may take before their connections are cut. */
const STOP_GRACE_MS = 2_000;

export interface AuthrateListener {
  warmingUp?(seconds: number): void;
  /** Counting starts (after the warm-up). */
  started?(): void;
  /** Every -i seconds. */
  interval?(row: StatsRow): void;
}

export interface AuthrateRun {
  /** Stops the run (Ctrl-C); `done` then resolves as usual. */
  stop(): void;
  /** The last (partial) interval's row and the run's summary. */
  readonly done: Promise<{ final: StatsRow; summary: StatsSummary }>;
}

/** What the workers share. */
interface Control {
  readonly config: AuthrateConfig;
  readonly stats: Stats;
  readonly abort: AbortController;
  readonly connections: Set<BindConnection>;
  counting: boolean;
}

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

/** The bind DN and password of each next iteration, from this worker's own generators. */
function bindSource(config: AuthrateConfig): () => { dn: string; password: Buffer } {
  const generators = config.generators.map((factory) => factory());
  return () => ({
    dn: config.bindDn(generators.map((next) => next())),
    password: Math.random() * 100 < config.invalidPassword ? INVALID_PASSWORD : config.password,
  });
}

class Worker {
  #connection: BindConnection | undefined;
  #counted = 0;
  readonly #nextBind: () => { dn: string; password: Buffer };
  readonly #nextStart: () => Promise<number>;

  constructor(private readonly control: Control, private readonly quota: number) {
    this.#nextBind = bindSource(control.config);
    this.#nextStart = pacer(control.config.targetThroughput / control.config.connections, control);
  }

  async run(): Promise<void> {
    while (running(this.control) && (this.quota === 0 || this.#counted < this.quota)) {
      const intended = await this.#nextStart();
      if (!running(this.control)) break;
      const code = await this.#iteration();
      if (this.control.counting && running(this.control)) {
        this.control.stats.record(performance.now() - intended, code);
        this.#counted += 1;
      }
    }
    this.#close();
  }

  /** One bind; its result code, or 91 when the connection fails. */
  async #iteration(): Promise<number> {
    const { dn, password } = this.#nextBind();
    try {
      const connection = this.#connection ?? (await this.#open());
      const code = await connection.bind(dn, password);
      if (!this.control.config.keepConnectionsOpen) this.#close();
      return code;
    } catch (error) {
      if (!(error instanceof ConnectionError)) throw error;
      this.#drop();
      return CONNECT_ERROR;
    }
  }

  async #open(): Promise<BindConnection> {
    const connection = await BindConnection.open(this.control.config);
    this.#connection = connection;
    this.control.connections.add(connection);
    return connection;
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
 * ConnectionError if not, which authrate turns into exit status 91.
 */
export async function probe(config: AuthrateConfig): Promise<void> {
  const connection = await BindConnection.open(config);
  connection.unbindAndClose();
}

async function warmUp(control: Control, listener: AuthrateListener): Promise<void> {
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
  await Promise.race([workers, stopped]);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([workers, new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
  clearTimeout(timer);
  for (const connection of control.connections) connection.destroy();
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
function startTicker(control: Control, listener: AuthrateListener): NodeJS.Timeout {
  const { config, stats } = control;
  const startedAt = performance.now();
  const deadline = config.maxDuration * 1000;
  return setInterval(() => {
    if (deadline > 0 && performance.now() - startedAt >= deadline - 1) control.abort.abort();
    else listener.interval?.(stats.row(config.percentiles));
  }, config.statInterval * 1000);
}

async function drive(control: Control, listener: AuthrateListener): Promise<{ final: StatsRow; summary: StatsSummary }> {
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
  return result;
}

/** Starts the load (call {@link probe} first). */
export function startAuthrate(config: AuthrateConfig, listener: AuthrateListener = {}): AuthrateRun {
  const control: Control = {
    config, stats: new Stats(), abort: new AbortController(), connections: new Set(), counting: false,
  };
  return { stop: () => control.abort.abort(), done: drive(control, listener) };
}
