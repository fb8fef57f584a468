/** Time an operation on one core: repeat it until enough time has passed, report µs per call. */

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

export function formatMicros(micros: number): string {
  return micros >= 100 ? micros.toFixed(0) : micros.toFixed(2);
}

export function formatRate(perSecond: number): string {
  return Math.round(perSecond).toLocaleString('en-US');
}
