/**
 * authrate's load: one worker per connection, one bind outstanding at a time (OpenDJ AuthRate
 * has no -t). With -f a worker keeps its connection and rebinds; without, every iteration
 * connects, binds, unbinds and closes. In search-then-bind an iteration is a search (exactly one
 * entry, else error 94 none / 95 several) and then the bind, timed as one operation. With -M each worker is paced and a response time runs
 * from the operation's intended start, so a slow server cannot hide its queueing (no
 * coordinated omission).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import filters from '@ldapjs/filter';
import type { AuthrateConfig, SearchThenBind } from './options.js';
import { BindConnection, CONNECT_ERROR, ConnectionError } from './connection.js';
import { Stats, type StatsRow, type StatsSummary } from './stats.js';

const INVALID_PASSWORD = Buffer.from('invalid-password', 'utf8');
/** Client-side result codes of a search-then-bind search that did not find exactly one entry (LDAP C API). */
const NO_RESULTS_RETURNED = 94;
const MORE_RESULTS_TO_RETURN = 95;
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

interface AuthrateRun {
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

/** The template arguments and password of each next iteration, from this worker's own generators. */
function iterationSource(config: AuthrateConfig): () => { args: string[]; password: Buffer } {
  const generators = config.generators.map((factory) => factory());
  return () => ({
    args: generators.map((next) => next()),
    password: Math.random() * 100 < config.invalidPassword ? INVALID_PASSWORD : config.password,
  });
}

/** The one entry's DN, or the code that counts as the iteration's error. */
async function findEntry(connection: BindConnection, search: SearchThenBind, args: readonly string[]): Promise<string | number> {
  const { code, dns } = await connection.search({
    base: search.base(args), scope: search.scope, deref: search.deref, attributes: search.attributes,
    filter: filters.parseString(search.filter(args)).toBer().buffer,
  });
  if (code !== 0) return code;
  if (dns.length !== 1) return dns.length === 0 ? NO_RESULTS_RETURNED : MORE_RESULTS_TO_RETURN;
  return dns[0]!;
}

class Worker {
  #connection: BindConnection | undefined;
  #counted = 0;
  readonly #nextIteration: () => { args: string[]; password: Buffer };
  /** The time the last iteration's search took (search-then-bind). */
  #searchMs = 0;
  readonly #nextStart: () => Promise<number>;

  constructor(private readonly control: Control, private readonly quota: number) {
    this.#nextIteration = iterationSource(control.config);
    this.#nextStart = pacer(control.config.targetThroughput / control.config.connections, control);
  }

  async run(): Promise<void> {
    while (running(this.control) && (this.quota === 0 || this.#counted < this.quota)) {
      const intended = await this.#nextStart();
      if (!running(this.control)) break;
      const code = await this.#iteration();
      if (this.control.counting && running(this.control)) {
        this.control.stats.record(performance.now() - intended, code, this.#searchMs);
        this.#counted += 1;
      }
    }
    this.#close();
  }

  /** One bind (after its search, in search-then-bind); its result code, or 91 when the connection fails. */
  async #iteration(): Promise<number> {
    const { args, password } = this.#nextIteration();
    try {
      const connection = this.#connection ?? (await this.#open());
      const code = await this.#bind(connection, args, password);
      if (!this.control.config.keepConnectionsOpen) this.#close();
      return code;
    } catch (error) {
      if (!(error instanceof ConnectionError)) throw error;
      this.#drop();
      return CONNECT_ERROR;
    }
  }

  async #bind(connection: BindConnection, args: string[], password: Buffer): Promise<number> {
    const { search, bindDn } = this.control.config;
    if (!search) return connection.bind(bindDn(args), password);
    const searchStart = performance.now();
    const found = await findEntry(connection, search, args);
    this.#searchMs = performance.now() - searchStart;
    if (typeof found === 'number') return found;
    return connection.bind(bindDn([...args, found]), password);
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
