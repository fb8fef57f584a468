/** Loads extra schemes from plugin files (`--scheme-plugin FILE`). */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorMessage } from '../errors.js';
import { SchemeError } from './errors.js';
import { createRegistry, type HashLimits, type Logger, type SchemeRegistry } from './registry.js';
import { HashMemoryBudget } from './memory-budget.js';

/**
 * A plugin is an ES module whose default export (or `schemes` export) is a scheme object or
 * an array of them. Every scheme is validated and refused if a name is already taken.
 */
export async function loadSchemePlugin(registry: SchemeRegistry, file: string): Promise<void> {
  const path = resolve(file);
  let module: Record<string, unknown>;
  try {
    module = await import(pathToFileURL(path).href);
  } catch (error) {
    throw new SchemeError(`cannot load scheme plugin ${file}: ${errorMessage(error)}`);
  }
  const exported = module.default ?? module.schemes;
  if (exported === undefined) {
    throw new SchemeError(`scheme plugin ${file} exports no scheme (expected a default export or "schemes")`);
  }
  const candidates = Array.isArray(exported) ? exported : [exported];
  if (candidates.length === 0) throw new SchemeError(`scheme plugin ${file} exports an empty list of schemes`);
  candidates.forEach((candidate) => registry.register(candidate, `scheme plugin ${file}`));
  registry.pluginFiles.push(path);
}

export async function loadSchemePlugins(registry: SchemeRegistry, files: readonly string[]): Promise<void> {
  for (const file of files) await loadSchemePlugin(registry, file);
}

/** What it takes to build a registry again in another thread: plain data. */
export interface RegistryRecipe {
  readonly limits: HashLimits;
  /** The memory budget's shared count, and the hashing threads its auto budget counts. */
  readonly memoryBudget: { readonly buffer: SharedArrayBuffer; readonly hashingThreads: number };
  readonly pluginFiles: readonly string[];
}

export function registryRecipe(registry: SchemeRegistry): RegistryRecipe {
  const { buffer, hashingThreads } = registry.memoryBudget;
  return { limits: registry.limits, memoryBudget: { buffer, hashingThreads }, pluginFiles: [...registry.pluginFiles] };
}

/** The same built-in and plugin schemes, with the same limits. */
export async function registryFromRecipe(recipe: RegistryRecipe, logger?: Logger): Promise<SchemeRegistry> {
  const memoryBudget = new HashMemoryBudget(recipe.memoryBudget.buffer, recipe.memoryBudget.hashingThreads);
  const registry = createRegistry({ ...recipe.limits, memoryBudget, ...(logger && { logger }) });
  await loadSchemePlugins(registry, recipe.pluginFiles);
  return registry;
}
