/**
 * Time an operation on one core: repeat it until enough time has passed, report µs per call.
 * timeConcurrently keeps several calls in flight instead, as a server does.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setImmediate, setTimeout } from 'node:timers/promises';

export interface Timing {
  readonly operations: number;
  readonly microsPerOp: number;
  readonly opsPerSecond: number;
  /** CPU µs per call over the whole process (every thread): more than microsPerOp when one call runs on several cores. */
  readonly cpuMicrosPerOp: number;
}

export interface TimingOptions {
  /** Keep going at least this long (after warm-up). */
  readonly minMillis: number;
  /** And at least this many operations. */
  readonly minOperations: number;
}

const DEFAULT_OPTIONS: TimingOptions = { minMillis: 500, minOperations: 5 };

/** Awaits only what is a promise, so timing a synchronous call does not time a microtask too. */
async function once(operation: () => unknown): Promise<void> {
  const result = operation();
  if (result instanceof Promise) await result;
}

/**
 * Runs `operation` one call at a time (never two at once, so an async operation that runs in
 * the thread pool still occupies one core), after a short warm-up.
 */
export async function timeOperation(
  operation: () => unknown, options: TimingOptions = DEFAULT_OPTIONS,
): Promise<Timing> {
  const warmUpUntil = performance.now() + options.minMillis / 5;
  while (performance.now() < warmUpUntil) await once(operation);
  const start = performance.now();
  const cpuAtStart = process.cpuUsage();
  let operations = 0;
  let elapsed = 0;
  while (elapsed < options.minMillis || operations < options.minOperations) {
    await once(operation);
    operations += 1;
    elapsed = performance.now() - start;
  }
  const cpu = process.cpuUsage(cpuAtStart);
  const microsPerOp = (elapsed * 1000) / operations;
  return { operations, microsPerOp, opsPerSecond: 1e6 / microsPerOp, cpuMicrosPerOp: (cpu.user + cpu.system) / operations };
}

export interface ConcurrentTiming extends Timing {
  /** The longest the event loop waited while the calls ran, in ms: a call that blocks it shows here. */
  readonly longestStallMillis: number;
}

/** The event-loop delay monitor's tick, in ms; its maximum includes one tick. */
const STALL_RESOLUTION = 2;

/**
 * Keeps `inFlight` calls of `operation` running at once (each starts the next when it ends)
 * until enough time has passed and operations have finished; reports wall time per operation
 * (so opsPerSecond is the throughput) and the longest event-loop stall. Each call starts from a
 * turn of the event loop (setImmediate), as a request read from a socket does: a synchronous
 * call, or one that computes on this thread behind a promise, then stalls the loop for as long
 * as the calls started in that turn take. One round of warm-up.
 */
export async function timeConcurrently(
  operation: () => unknown, inFlight: number, options: TimingOptions = DEFAULT_OPTIONS,
): Promise<ConcurrentTiming> {
  await Promise.all(Array.from({ length: inFlight }, () => once(operation)));
  const delays = monitorEventLoopDelay({ resolution: STALL_RESOLUTION });
  delays.enable();
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  let started = 0;
  let operations = 0;
  const lane = async (): Promise<void> => {
    while (performance.now() - start < options.minMillis || started < options.minOperations) {
      started += 1;
      await setImmediate();
      await once(operation);
      operations += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const elapsed = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  await setTimeout(2 * STALL_RESOLUTION); // the monitor records a stall at its next tick
  delays.disable();
  const microsPerOp = (elapsed * 1000) / operations;
  const longestStallMillis = Math.max(0, delays.max / 1e6 - STALL_RESOLUTION);
  return { operations, microsPerOp, opsPerSecond: 1e6 / microsPerOp, cpuMicrosPerOp: (cpu.user + cpu.system) / operations, longestStallMillis };
}

export function formatMicros(micros: number): string {
  return micros >= 100 ? micros.toFixed(0) : micros.toFixed(2);
}

export function formatRate(perSecond: number): string {
  return Math.round(perSecond).toLocaleString('en-US');
}
