/**
 * The scheme micro-benchmark: per scheme, µs per encode and per verify and verifies/s on one
 * core (one operation at a time), with each scheme's default parameters.
 */
import type { SchemeRegistry } from '../password/index.js';
import { timeOperation, type Timing, type TimingOptions } from './timing.js';

export interface SchemeTiming {
  readonly scheme: string;
  readonly params: string;
  readonly encode: Timing;
  readonly verify: Timing;
}

const PASSWORD = Buffer.from('correct horse battery staple');

export async function benchScheme(
  registry: SchemeRegistry, name: string, options: TimingOptions,
): Promise<SchemeTiming> {
  const scheme = registry.require(name);
  const stored = await registry.encode(name, PASSWORD);
  const encode = await timeOperation(() => registry.encode(name, PASSWORD), options);
  const verify = await timeOperation(async () => {
    const result = await registry.verify(PASSWORD, stored);
    if (result.status !== 'match') throw new Error(`{${name}} did not verify its own output`);
  }, options);
  const params = (scheme.params ?? []).map((spec) => `${spec.name}=${spec.default}`).join(' ');
  return { scheme: scheme.names[0]!, params, encode, verify };
}

/** Every scheme that can encode, or the ones named. */
export function benchmarkableSchemes(registry: SchemeRegistry, only: readonly string[] = []): string[] {
  const all = registry.list().filter((entry) => entry.scheme.encode).map((entry) => entry.scheme.names[0]!);
  if (only.length === 0) return all;
  return only.map((name) => registry.require(name).names[0]!);
}
