/**
 * memberOf searches, leveldap against OpenLDAP slapd with its memberof overlay, side by side in
 * one run. The same directory in both: USERS users and GROUPS groups from make-ldif's generator
 * (seed "bench"; group.0 the largest, sizes falling off, some nested), no passwords. slapd is
 * loaded with slapadd, which runs no overlay, so its users carry the memberOf values the overlay
 * would have written (direct memberships, as the overlay keeps them), and it indexes
 * objectClass, uid, member and memberOf for equality; leveldap imports the groups alone (its
 * memberOf is computed) and serves with its defaults. The same client (bench/search-load.ts:
 * CONNECTIONS connections bound as each server's admin, one search outstanding on each) runs
 * each search on each server in turn, ROUNDS alternating rounds of SECONDS, the best kept:
 *
 *   largest group    (memberOf=cn=group.0,ou=Groups,...), no attributes: every member of it
 *   smallest group   (memberOf=cn=group.<GROUPS-1>,...), no attributes
 *   user in group    (&(uid=user.N)(memberOf=cn=group.0,...)), N random: an authorization check
 *   a user's groups  (uid=user.N) memberOf, N random
 *   baseline         (uid=user.N), no attributes: the same search without memberOf
 *
 * Reports searches/s, entries/s, p50 and p99 latency, searches per CPU-second of the server.
 * Run: npm run build && node dist/bench/bench-memberof.js  (USERS=100000 GROUP_COUNT=100 SECONDS=10
 * CONNECTIONS=8 ROUNDS=2; CASES=user for some searches only; SERVE_ARGS="--threads 1" for more serve flags;
 * BUILDS: a comma-separated list of other built checkouts, whose leveldap runs beside this one's)
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import filters from '@ldapjs/filter';
import { formatLdifRecords, makeEntries } from '../src/ldif/index.js';
import { values, type Entry } from '../src/store/index.js';
import { startLeveldap, startSlapd as startBenchSlapd, type BenchServer } from '../src/bench-schemes/servers.js';
import { bestOfRounds, measureSearches, type MeasuredSearches } from './search-load.js';

const USERS = Number(process.env.USERS ?? 100_000);
const GROUPS = Number(process.env.GROUP_COUNT ?? 100);
const SECONDS = Number(process.env.SECONDS ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const SERVE_ARGS = (process.env.SERVE_ARGS ?? '').split(' ').filter(Boolean);
/** Other built checkouts, whose leveldap runs beside this one's (to compare builds). */
const BUILDS = process.env.BUILDS ? process.env.BUILDS.split(',') : [];
/** CASES=name,name: only the searches whose names contain one of these. */
const ONLY = (process.env.CASES ?? '').split(',').filter(Boolean);
const SUFFIX = 'dc=example,dc=com';
const groupDn = (rank: number) => `cn=group.${rank},ou=Groups,${SUFFIX}`;

interface Served extends BenchServer {
  readonly label: string;
  readonly bindDn: string;
  readonly password: string;
}

interface Case {
  readonly name: string;
  readonly filter: () => string;
  readonly attributes: readonly string[];
}

const randomUser = () => Math.floor(Math.random() * USERS);

const CASES: readonly Case[] = [
  { name: 'largest group', filter: () => `(memberOf=${groupDn(0)})`, attributes: ['1.1'] },
  { name: 'smallest group', filter: () => `(memberOf=${groupDn(GROUPS - 1)})`, attributes: ['1.1'] },
  { name: 'user in group', filter: () => `(&(uid=user.${randomUser()})(memberOf=${groupDn(0)}))`, attributes: ['1.1'] },
  { name: 'a user\'s groups', filter: () => `(uid=user.${randomUser()})`, attributes: ['memberOf'] },
  { name: 'a user, no memberOf (baseline)', filter: () => `(uid=user.${randomUser()})`, attributes: ['1.1'] },
];

/** The generated entries without passwords (neither server needs them here). */
function* generated(): Generator<Entry> {
  for (const entry of makeEntries({ users: USERS, groups: GROUPS, baseDn: SUFFIX, seed: 'bench', password: '' })) {
    yield { dn: entry.dn, attributes: entry.attributes.filter((attribute) => attribute.name !== 'userPassword') };
  }
}

/** Each member's groups (DNs as the groups write them, lower-cased keys): the memberOf values slapd's users get. */
function memberships(): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const entry of generated()) {
    if (!entry.dn.startsWith('cn=group.')) continue;
    for (const member of values(entry, 'member')) {
      const key = member.toString().toLowerCase();
      groups.set(key, [...(groups.get(key) ?? []), entry.dn]);
    }
  }
  return groups;
}

async function writeLdif(file: string, entries: Iterable<Entry>): Promise<void> {
  const out = createWriteStream(file);
  for await (const text of formatLdifRecords(entries)) if (!out.write(text)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/** The same entries, users with memberOf (slapadd runs no overlay). */
function* withMemberOf(groups: ReadonlyMap<string, string[]>): Generator<Entry> {
  for (const entry of generated()) {
    const memberOf = groups.get(entry.dn.toLowerCase());
    yield memberOf ? { dn: entry.dn, attributes: [...entry.attributes, { name: 'memberOf', values: memberOf.map((dn) => Buffer.from(dn)) }] } : entry;
  }
}

/** slapd as a careful operator runs it (16 threads, nothing logged per operation), with the memberof overlay and the same indexes. */
async function startSlapd(ldifFile: string): Promise<Served> {
  const slapd = await startBenchSlapd(ldifFile, {
    modules: ['memberof.so'], threads: 16, logLevel: '0',
    databaseLines: ['index objectClass eq', 'index uid eq', 'index member eq', 'index memberOf eq', 'overlay memberof'],
  });
  return { ...slapd, label: 'slapd', bindDn: slapd.rootDn, password: slapd.rootPassword };
}

async function measure(server: Served, test: Case): Promise<MeasuredSearches> {
  return measureSearches({
    host: '127.0.0.1', port: server.port, bindDn: server.bindDn, password: Buffer.from(server.password),
    next: () => ({ base: SUFFIX, scope: 2, deref: 0, filter: filters.parseString(test.filter()).toBer().buffer, attributes: test.attributes }),
  }, server.pid, { connections: CONNECTIONS, seconds: SECONDS, warmUpSeconds: 1 });
}

function row(test: Case, name: string, r: MeasuredSearches): string {
  const errors = Object.entries(r.errors).map(([code, count]) => `${count} x ${code}`).join(', ') || '0';
  const perCpu = r.cpu > 0 ? (r.searches / r.cpu).toFixed(1) : '-';
  return `| ${test.name} | ${name} | ${r.throughput.toFixed(1)} | ${Math.round(r.entries / r.seconds)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${perCpu} | ${errors} |`;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-bench-memberof-'));
  const servers: Served[] = [];
  try {
    process.stderr.write(`generating ${USERS} users and ${GROUPS} groups...\n`);
    await writeLdif(join(dir, 'leveldap.ldif'), generated());
    await writeLdif(join(dir, 'slapd.ldif'), withMemberOf(memberships()));
    servers.push(await startSlapd(join(dir, 'slapd.ldif')));
    const admin = { bindDn: 'cn=Directory Manager', password: 'bench-schemes' };
    const leveldap = await startLeveldap(join(dir, 'leveldap.ldif'), join(dir, 'leveldap'), [], SERVE_ARGS);
    servers.push({ ...leveldap, label: 'leveldap', ...admin });
    for (const [index, build] of BUILDS.entries()) {
      const other = await startLeveldap(join(dir, 'leveldap.ldif'), join(dir, `build-${index}`), [], SERVE_ARGS, join(build, 'bin', 'leveldap.js'));
      servers.push({ ...other, label: `leveldap (${build})`, ...admin });
    }
    const lines = ['| search | server | searches/s | entries/s | p50 ms | p99 ms | searches per CPU-second | errors |', '|---|---|---:|---:|---:|---:|---:|---:|'];
    for (const test of CASES.filter((candidate) => ONLY.length === 0 || ONLY.some((part) => candidate.name.includes(part)))) {
      const best = await bestOfRounds(servers, ROUNDS, (server) => measure(server, test), (text) => process.stderr.write(`${test.name}: ${text}...\n`));
      for (const server of servers) lines.push(row(test, server.label, best.get(server.label)!));
      for (const server of servers.slice(1)) {
        lines.push(`| ${test.name} | **${server.label} / slapd** | **${(best.get(server.label)!.throughput / best.get('slapd')!.throughput).toFixed(2)}x** | | | | | |`);
      }
    }
    process.stdout.write(`\n${USERS} users, ${GROUPS} groups, ${CONNECTIONS} connections, ${SECONDS} s per run, best of ${ROUNDS} alternating runs, Node ${process.version}\n\n${lines.join('\n')}\n`);
  } finally {
    for (const server of servers) await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
