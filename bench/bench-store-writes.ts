/**
 * Synced writes per second through the store (DirectoryStore + modifyEntry, one thread): C
 * writers, each replacing a description of its own entry in a loop, for each C; the median of
 * ROUNDS runs with its p50 latency. What the write gate (src/store/write-gate.ts) costs is
 * measured by running it against another build's store with STORE=path/to/dist/src/store/index.js.
 * Run: npm run build && node dist/bench/bench-store-writes.js
 * Env: CONCURRENCY (list, default 1,8,64), SECONDS (per run, default 3), ROUNDS (default 3),
 * DIR (where the databases go, default the system's temporary directory).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatTable } from '../src/cli/support/table.js';
import { median } from '../src/authrate/stats.js';
import type * as Store from '../src/store/index.js';

const CONCURRENCY = (process.env.CONCURRENCY ?? '1,8,64').split(',').map(Number);
const SECONDS = Number(process.env.SECONDS ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const store: typeof Store = await import(process.env.STORE ? pathToFileURL(process.env.STORE).href : '../src/store/index.js');

const PEOPLE = 'ou=People,dc=example,dc=com';
const entry = (dn: string, pairs: Record<string, string | string[]>): Store.Entry => ({
  dn, attributes: Object.entries(pairs).map(([name, value]) => ({ name, values: [value].flat().map((text) => Buffer.from(text)) })),
});

interface Run {
  readonly perSecond: number;
  readonly p50: number;
}

async function run(writers: number): Promise<Run> {
  const dir = await mkdtemp(join(process.env.DIR ?? tmpdir(), 'leveldap-bench-writes-'));
  const db = await store.DirectoryStore.open(dir);
  try {
    await db.add(entry('dc=example,dc=com', { objectClass: ['top', 'domain'], dc: 'example' }), { allowNewSuffix: true });
    await db.add(entry(PEOPLE, { objectClass: ['top', 'organizationalUnit'], ou: 'People' }));
    for (let n = 0; n < writers; n += 1) {
      await db.add(entry(`uid=w${n},${PEOPLE}`, { objectClass: ['top', 'person', 'inetOrgPerson'], uid: `w${n}`, cn: 'w', sn: 'w' }));
    }
    const latencies: number[] = [];
    const end = performance.now() + SECONDS * 1000;
    await Promise.all(Array.from({ length: writers }, async (_, n) => {
      const dn = store.parseDn(`uid=w${n},${PEOPLE}`);
      for (let i = 0; performance.now() < end; i += 1) {
        const begun = performance.now();
        await store.modifyEntry(db, dn, [{ op: 'replace', attribute: 'description', values: [Buffer.from(String(i))] }], { actor: 'cn=bench' });
        latencies.push(performance.now() - begun);
      }
    }));
    latencies.sort((a, b) => a - b);
    return { perSecond: latencies.length / SECONDS, p50: latencies[latencies.length >> 1] ?? 0 };
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const rows = [['writers', 'writes/s (median)', 'p50 ms', 'runs (writes/s)']];
for (const writers of CONCURRENCY) {
  const runs: Run[] = [];
  for (let round = 0; round < ROUNDS; round += 1) runs.push(await run(writers));
  rows.push([
    String(writers), median(runs.map((r) => r.perSecond)).toFixed(0), median(runs.map((r) => r.p50)).toFixed(2),
    runs.map((r) => r.perSecond.toFixed(0)).join(' '),
  ]);
}
process.stdout.write(formatTable(rows, new Set([0, 1, 2])));
