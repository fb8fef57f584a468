/** Loads a Node-API addon built under native/ (npm ci builds them); undefined when it is not built. */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** The addon in native/DIRECTORY, built as TARGET.node, e.g. ('fd-dup', 'fd_dup'). */
export function loadAddon<T>(directory: string, target: string): T | undefined {
  try {
    return load(`../../native/${directory}/build/Release/${target}.node`) as T;
  } catch {
    return undefined;
  }
}
