/**
 * Loads a Node-API addon of native/ that a scheme hashes through (npm's install builds them).
 * A scheme whose addon did not build stays registered and says why it cannot hash.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export interface LoadedAddon<T> {
  readonly addon?: T;
  /** Why it did not load (the first line of the loader's error), when it did not. */
  readonly error?: string;
}

/** The addon in native/DIRECTORY, built as TARGET.node; from dist/schemes/, where the compiled module runs. */
export function loadSchemeAddon<T>(directory: string, target: string): LoadedAddon<T> {
  try {
    return { addon: load(`../../native/${directory}/build/Release/${target}.node`) as T };
  } catch (error) {
    return { error: (error instanceof Error ? error.message : String(error)).split('\n')[0] };
  }
}
