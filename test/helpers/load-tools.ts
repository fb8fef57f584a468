/**
 * For the tests of the load tools (authrate, searchrate, modrate): a server they run against with
 * its admin, from a leveldap or a slapd of the tests, and a run with --json read back.
 */
import assert from 'node:assert/strict';
import { run } from '../../src/harness/run.js';
import type { Slapd } from '../../src/harness/slapd.js';
import type { LeveldapServer } from './leveldap-server.js';

/** A server to run against, and its admin's credentials. */
export interface LoadTarget {
  readonly port: number;
  readonly adminDn: string;
  readonly adminPassword: string;
}

export const leveldapTarget = (server: LeveldapServer): LoadTarget => ({ port: server.port, adminDn: server.adminDn, adminPassword: server.adminPassword });
export const slapdTarget = (slapd: Slapd): LoadTarget => ({ port: slapd.port, adminDn: slapd.rootDn, adminPassword: slapd.rootPassword });

/** What every tool's --json says (searchrate adds entries and entries_per_search). */
export interface LoadSummary {
  readonly throughput: number;
  readonly operations: number;
  readonly errors: number;
  readonly errors_by_code: Readonly<Record<string, number>>;
  readonly p50_ms: number;
  readonly max_ms: number;
}

/** Runs `node bin [args]` (args ending with --json), which must exit 0; its summary. */
export async function runJson<T extends LoadSummary = LoadSummary>(bin: string, args: readonly string[]): Promise<T> {
  const result = await run(process.execPath, [bin, ...args]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}
