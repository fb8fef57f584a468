/**
 * The schema this process serves: the built-in schemas (builtin/), plus the --schema files
 * `serve` and `import-ldif` were given, installed once at start-up in every thread before any
 * entry is read (installSchema). Everything that asks what an attribute type is
 * (src/store/schema.ts: the DN normalizer, indexes, the codec, the filter evaluator) and every
 * check of an entry (check.ts) reads it here. It is process state, set once and read-only after:
 * the schema is the meaning of the data, the same for every request, as slapd's is.
 */
import { readFileSync } from 'node:fs';
import { BUILTIN_VARIANTS, builtinSchemaFiles } from './builtin/index.js';
import { parseSchemaFile, type SchemaDefinitions } from './parse.js';
import { SchemaRegistry } from './registry.js';

let installed: SchemaRegistry | undefined;
const listeners: (() => void)[] = [];

function builtinDefinitions(rfc2307bis: boolean): SchemaDefinitions[] {
  return builtinSchemaFiles(rfc2307bis).map((file) => parseSchemaFile(file.text, file.name));
}

/**
 * The built-in schemas and these files, in order (`rfc2307bis` among them picks that built-in
 * variant instead of a file); SchemaSyntaxError or SchemaError for the first problem.
 */
export function buildSchema(files: readonly string[] = []): SchemaRegistry {
  const paths = files.filter((file) => !BUILTIN_VARIANTS.has(file));
  const loaded = paths.map((file) => parseSchemaFile(readFileSync(file, 'utf8'), file));
  return SchemaRegistry.build([...builtinDefinitions(paths.length !== files.length), ...loaded]);
}

/** The schema in force (the built-in one until installSchema). */
export function currentSchema(): SchemaRegistry {
  installed ??= buildSchema();
  return installed;
}

/** Puts a schema in force; caches built from the previous one are dropped (onSchemaChange). */
export function installSchema(registry: SchemaRegistry): void {
  installed = registry;
  for (const listener of listeners) listener();
}

/** Calls `listener` whenever another schema is installed (caches of type lookups register here). */
export function onSchemaChange(listener: () => void): void {
  listeners.push(listener);
}
