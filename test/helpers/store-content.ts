/**
 * What a directory holds, in one comparable form (normalized DN to its sorted `attribute: value`
 * lines, attribute names lowercased), read from two places: the rows of a PostgreSQL store (each
 * record decoded as LevelDB holds it, codec.ts) and `leveldap export-ldif --data DIR` of a
 * stopped node's local copy. Rows are read with pg, and a command's whole output is kept
 * (leveldapOutput; run() keeps the last megabyte only).
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { decodeEntry } from '../../src/store/codec.js';
import { normalizeDn } from '../../src/store/index.js';
import { parseLdifOutput } from './ldap-client.js';
import { leveldapBin } from './paths.js';

export type Content = Map<string, string[]>;

function contentOf(entries: Iterable<{ dn: string; lines: string[] }>): Content {
  return new Map([...entries].map(({ dn, lines }) => [normalizeDn(dn), lines.sort()]));
}

/** Rows of a PostgreSQL store, queried with pg. */
export async function queryStore<T extends pg.QueryResultRow>(url: string, text: string, params: readonly unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, [...params])).rows;
  } finally {
    await client.end();
  }
}

/** The entries of the PostgreSQL store at `url`. */
export async function postgresContent(url: string): Promise<Content> {
  const rows = await queryStore<{ record: Buffer }>(url, 'SELECT record FROM leveldap_entries');
  return contentOf(rows.map(({ record }) => {
    const entry = decodeEntry(record);
    return { dn: entry.dn, lines: entry.attributes.flatMap(({ name, values }) => values.map((value) => `${name.toLowerCase()}: ${value.toString('utf8')}`)) };
  }));
}

/** What `leveldap ARGS` writes on standard output, all of it; throws unless it exits 0. */
export async function leveldapOutput(args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, [leveldapBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`leveldap ${args.join(' ')} exited with ${code}: ${Buffer.concat(err).toString()}`);
  return Buffer.concat(out).toString('utf8');
}

/** The entries `leveldap export-ldif --data dir` writes (the directory must not be in use). */
export async function exportContent(dir: string): Promise<Content> {
  const ldif = await leveldapOutput(['export-ldif', '--data', dir]);
  return contentOf(parseLdifOutput(ldif).map((entry) => ({
    dn: entry.dn, lines: [...entry.attributes].flatMap(([name, values]) => values.map((value) => `${name.toLowerCase()}: ${value}`)),
  })));
}

/** How `actual` differs from `expected`: at most `limit` lines, empty when they are the same. */
export function contentDifferences(expected: Content, actual: Content, limit = 10): string[] {
  const differences: string[] = [];
  for (const [dn, lines] of expected) {
    const found = actual.get(dn);
    if (!found) differences.push(`missing: ${dn}`);
    else if (found.join('\n') !== lines.join('\n')) differences.push(`differs: ${dn}`);
  }
  for (const dn of actual.keys()) if (!expected.has(dn)) differences.push(`extra: ${dn}`);
  return differences.slice(0, limit);
}
