/**
 * Scale-out on PostgreSQL (issue 19, docs/scale-out.md): one throwaway cluster (harness/postgres.ts)
 * and real `leveldap serve --store URL --node-name N` processes over it, each with an empty --data
 * that becomes its local copy. Nodes a and b start at once on the empty store, a loads
 * make-ldif's entries with ldapadd, c joins the populated store. With real clients (raw LDAP connections, the OpenLDAP tools):
 *
 * - a password changed on a binds on b and c, the old one refused (visibility time reported);
 * - read-your-writes on the writing node; writes to entries no other node wrote lately commit in
 *   one round trip (none locked first, /metrics); increments through every node add up exactly;
 *   an add under a parent deleted on another node never both succeed (no orphan row); of one
 *   entry added on two nodes at once, one add succeeds (the other, behind, catches up: 68);
 * - a node restarted on its --data resumes from its position and sees what was written meanwhile;
 * - PostgreSQL stopped (immediate): binds go on, writes answer 52, reads of a node with
 *   --max-staleness 2 answer 52 once it has been silent longer; started again, everything resumes;
 * - PostgreSQL hung (SIGSTOP): a write answers (52 or 80) instead of waiting for ever; resumed,
 *   writes work and every node, having found its silent stream broken, streams again;
 * - a node joining a populated store while it is written copies it, and misses nothing;
 * - a node killed with SIGKILL during an 8-client burst loses no acknowledged write, and every
 *   node's export-ldif equals PostgreSQL's rows.
 *
 * Times are reported (t.diagnostic), never asserted. LEVELDAP_TEST_LOGS=DIR keeps every node's
 * log in DIR.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { postgresUnavailable, startPostgres, type PostgresCluster } from '../../src/harness/postgres.js';
import { findProgram } from '../../src/harness/slapd.js';
import { run } from '../../src/harness/run.js';
import { sysUnavailable } from '../../src/server/net/native-sys.js';
import { parseDn } from '../../src/store/dn.js';
import { dnKey } from '../../src/store/index.js';
import { eventually } from '../helpers/eventually.js';
import { ldapTool, parseLdifOutput, valuesOf } from '../helpers/ldap-client.js';
import { LdapSession } from '../helpers/ldap-session.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { logRecords } from '../helpers/server-log.js';
import { metricsPort, sample, scrape } from '../helpers/metrics.js';
import { contentDifferences, exportContent, leveldapOutput, postgresContent, queryStore } from '../helpers/store-content.js';

const BASE = 'dc=example,dc=com';
const PEOPLE = `ou=People,${BASE}`;
const USERS = 2000;
const userDn = (n: number): string => `uid=user.${n},${PEOPLE}`;
const ADMIN_DN = 'cn=Directory Manager';
const ADMIN_PASSWORD = 'admin-password-of-every-node';
const ADMIN = { dn: ADMIN_DN, password: ADMIN_PASSWORD };
/** SSHA512 hashes cheaply: binds and loads cost little CPU on a small machine. /metrics shows how writes went to PostgreSQL. */
const NODE_ARGS = ['--default-scheme', 'SSHA512', '--metrics-port', '0'];
const COPIED = 'the local copy of the PostgreSQL store was made';
const RESUMED = 'the local copy resumes from its position in the PostgreSQL store';
const BROKE = 'the replication stream from PostgreSQL broke; retrying every second';

const TOOLS = ['ldapadd', 'ldapsearch'];
const missingTools = TOOLS.filter((tool) => findProgram(tool) === undefined);
const skip = postgresUnavailable() ?? (missingTools.length > 0 ? `OpenLDAP clients missing (${missingTools.join(', ')}): apt-get install ldap-utils` : false);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const entryCode = (dn: string): string => dnKey(parseDn(dn));

/** Polls `condition` every `pauseMs` (finer than eventually(), for the times reported) for up to `ms`; the milliseconds it took. */
async function timeUntil(condition: () => Promise<boolean>, ms = 30_000, pauseMs = 2): Promise<number> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(pauseMs);
  }
  return performance.now() - started;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;

/** The log records of a server with this message. */
function logged(server: LeveldapServer, message: string): Record<string, unknown>[] {
  return logRecords(server).filter((record) => record['msg'] === message);
}

/** The warnings, errors and refused operations a server logged (for a failure's message). */
function troubles(server: LeveldapServer): string {
  return logRecords(server).filter((record) => Number(record['level']) >= 40 || record['msg'] === 'stopping' || (record['msg'] === 'operation' && record['code'] !== 0))
    .slice(-20).map((record) => JSON.stringify(record).slice(0, 500)).join('\n');
}

/** A person entry for adds (SSHA512-hashed by the node if a password is given). */
function person(uid: string, extra: Record<string, string[]> = {}): Record<string, string[]> {
  return { objectClass: ['inetOrgPerson'], uid: [uid], cn: [uid], sn: [uid], ...extra };
}

interface AckedValue {
  readonly dn: string;
  readonly value: string;
}

/**
 * 8 admin clients write to the node one request at a time, each adding uid=burst-C-N under
 * `parent` and adding the value burst-C-N to user.(100 + C)'s description in turn; the node is
 * killed with SIGKILL once `killAfter` writes were acknowledged. What was acknowledged.
 */
async function burstUntilKilled(server: LeveldapServer, parent: string, killAfter: number): Promise<{ adds: string[]; values: AckedValue[] }> {
  const adds: string[] = [];
  const values: AckedValue[] = [];
  let killed = false;
  const client = async (c: number): Promise<void> => {
    const session = await LdapSession.open(server.port, ADMIN);
    try {
      for (let n = 0; !killed; n += 1) {
        const uid = `burst-${c}-${n}`;
        const isAdd = n % 2 === 0;
        const dn = isAdd ? `uid=${uid},${parent}` : userDn(100 + c);
        const write = isAdd ? session.add(dn, person(uid)) : session.modify(dn, [{ op: 'add', attribute: 'description', values: [uid] }]);
        const code = await write.catch(() => undefined);
        if (code === undefined) return; // the node died with this write in flight: not acknowledged
        assert.equal(code, 0);
        if (isAdd) adds.push(dn);
        else values.push({ dn, value: uid });
        if (!killed && adds.length + values.length >= killAfter) {
          killed = true;
          server.process.kill('SIGKILL');
        }
      }
    } finally {
      session.close();
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, c) => client(c)));
  return { adds, values };
}

describe('scale-out: leveldap nodes over one PostgreSQL store', { skip, timeout: 300_000 }, () => {
  let cluster: PostgresCluster;
  /** Every server started (stopped at the end; the first instance of a directory removes it). */
  const servers: LeveldapServer[] = [];
  /** The running node of each name. */
  const nodes = new Map<string, LeveldapServer>();
  const sessions = new Map<LeveldapServer, LdapSession>();
  /** What before() measured, reported by the first test. */
  let loading = '';

  async function startNode(name: string, options: { args?: string[]; dir?: string } = {}): Promise<LeveldapServer> {
    const server = await startLeveldap({
      node: { store: cluster.url, name }, adminPassword: ADMIN_PASSWORD, args: [...NODE_ARGS, ...(options.args ?? [])],
      startTimeoutMs: 120_000, ...(options.dir !== undefined && { dir: options.dir }),
    });
    servers.push(server);
    nodes.set(name, server);
    return server;
  }

  const node = (name: string): LeveldapServer => nodes.get(name)!;

  /** An admin connection to the node, kept while it runs. */
  async function admin(name: string): Promise<LdapSession> {
    const server = node(name);
    let session = sessions.get(server);
    if (!session || session.closed) {
      session = await LdapSession.open(server.port, ADMIN);
      sessions.set(server, session);
    }
    return session;
  }

  /** Stops a node (SIGTERM), its directory kept for a restart. */
  async function terminate(name: string): Promise<LeveldapServer> {
    const server = node(name);
    sessions.get(server)?.close();
    await server.terminate();
    nodes.delete(name);
    return server;
  }

  /** Waits until no connection streams from the node's slot (its process is gone, and PostgreSQL knows it). */
  async function slotReleased(name: string): Promise<void> {
    const active = async (): Promise<string> => (await cluster.sql(`SELECT active FROM pg_replication_slots WHERE slot_name = 'leveldap_${name}'`)).trim();
    assert.ok(await eventually(async () => (await active()) === 'f', 30_000), `the slot of node ${name} is still in use (${await active()})`);
  }

  /** Whether every running node streams from its slot and has acknowledged a position past `lsn`. */
  async function slotsAcknowledged(lsn: string): Promise<boolean> {
    const slots = [...nodes.keys()].map((name) => `'leveldap_${name}'`).join(',');
    const count = await cluster.sql(`SELECT count(*) FROM pg_replication_slots WHERE slot_name IN (${slots}) AND active AND confirmed_flush_lsn > '${lsn}'`);
    return count.trim() === String(nodes.size);
  }

  /** The adds (DNs) not under `parent` on the node. */
  async function missingAdds(name: string, parent: string, adds: readonly string[]): Promise<string[]> {
    const held = new Set((await (await admin(name)).search(parent, 'one', { present: 'uid' })).dns.map((dn) => dn.toLowerCase()));
    return adds.filter((dn) => !held.has(dn.toLowerCase()));
  }

  /** The values not in the description of their entry on the node. */
  async function missingValues(name: string, values: readonly AckedValue[]): Promise<string[]> {
    const session = await admin(name);
    const lost: string[] = [];
    for (const { dn, value } of values) if ((await session.search(dn, 'base', { equality: ['description', value] })).dns.length === 0) lost.push(value);
    return lost;
  }

  /** Waits until every running node has (or has not) the entry; another answer (52 from a node past --max-staleness) waits too. */
  async function everywhere(dn: string, present = true, timeout = 30_000): Promise<void> {
    for (const name of nodes.keys()) {
      let code = -1;
      const seen = await eventually(async () => (code = (await (await admin(name)).search(dn)).code) === (present ? 0 : 32), timeout);
      assert.ok(seen, `node ${name} ${present ? 'never had' : 'still has'} ${dn} (a search answers ${code})`);
    }
  }

  /** A node's counters of its writes to PostgreSQL (/metrics). */
  async function writeCounts(name: string): Promise<{ commits: number; transactions: number; lockedFirst: number; staleRetries: number }> {
    const { text } = await scrape(metricsPort(node(name)));
    const count = (metric: string): number => sample(text, metric) ?? Number.NaN;
    return {
      commits: count('leveldap_postgres_commits_total'), transactions: count('leveldap_postgres_transactions_total'),
      lockedFirst: count('leveldap_postgres_locked_first_total'), staleRetries: count('leveldap_postgres_stale_retries_total'),
    };
  }

  /** The copy time a new node logged. */
  function copyTime(name: string): string {
    const record = logged(node(name), COPIED)[0];
    assert.ok(record, `node ${name} logged no copy`);
    return `${String(record['entries'])} entries copied in ${String(record['ms'])} ms`;
  }

  before(async () => {
    cluster = await startPostgres();
    await Promise.all([startNode('a'), startNode('b')]); // at once on the empty store: one of them makes the tables
    const made = await leveldapOutput(['make-ldif', '--users', String(USERS)]);
    const started = performance.now();
    const loaded = await ldapTool('ldapadd', node('a').url, [], ADMIN, made);
    assert.equal(loaded.code, 0, `${loaded.stderr}\n${troubles(node('a'))}`);
    const loadMillis = performance.now() - started;
    await startNode('c');
    loading = `${USERS + 2} entries loaded through node a by ldapadd in ${ms(loadMillis)}; then c joined: ${copyTime('c')}`;
  });

  after(async () => {
    const logDir = process.env.LEVELDAP_TEST_LOGS;
    if (logDir) {
      mkdirSync(logDir, { recursive: true });
      servers.forEach((server, i) => writeFileSync(join(logDir, `${i}.log`), `${server.logs().join('\n')}\n${server.stderr()}`));
    }
    for (const session of sessions.values()) session.close();
    for (const server of servers.reverse()) await server.stop();
    await cluster?.destroy();
  });

  test('three nodes: a password changed through a binds on b and c, the old one is refused there', async (t) => {
    t.diagnostic(loading);
    const dn = userDn(1);
    const writer = await admin('a');
    const self = await LdapSession.open(node('a').port);
    const pollers = await Promise.all(['b', 'c'].map((name) => LdapSession.open(node(name).port)));
    const times: Record<string, number[]> = { b: [], c: [] };
    try {
      let old = 'password';
      for (let round = 0; round < 50; round += 1) {
        const changed = `changed-password-${round}`;
        assert.equal(await writer.modify(dn, [{ op: 'replace', attribute: 'userPassword', values: [changed] }]), 0);
        assert.equal(await self.bind(dn, changed), 0, 'the new password binds at once on the node that wrote it');
        await Promise.all(pollers.map(async (poller, i) => {
          const name = i === 0 ? 'b' : 'c';
          times[name]!.push(await timeUntil(async () => (await poller.bind(dn, changed)) === 0));
          assert.equal(await poller.bind(dn, old), 49, `node ${name}: the old password is refused once the new one binds`);
        }));
        old = changed;
      }
    } finally {
      [self, ...pollers].forEach((session) => session.close());
    }
    for (const [name, values] of Object.entries(times)) {
      t.diagnostic(`a -> ${name}: the new password binds ${ms(percentile(values, 0.5))} (p50), ${ms(percentile(values, 0.99))} (p99), ${ms(Math.max(...values))} (max) after a answered the modify (${values.length} rounds)`);
    }
  });

  test('read-your-writes: a node answers a search with the write it just acknowledged', async () => {
    const rounds = 40;
    await Promise.all(['a', 'b', 'c'].map(async (name) => {
      const session = await LdapSession.open(node(name).port, ADMIN);
      try {
        for (let round = 0; round < rounds; round += 1) {
          const uid = `ryw-${name}-${round}`;
          const dn = `uid=${uid},${PEOPLE}`;
          assert.equal(await session.add(dn, person(uid)), 0);
          assert.deepEqual((await session.search(PEOPLE, 'one', { equality: ['uid', uid] })).dns, [dn], `node ${name}: an add is found at once`);
          assert.equal(await session.modify(dn, [{ op: 'replace', attribute: 'description', values: [`round ${round}`] }]), 0);
          const changed = await session.search(dn, 'base', { equality: ['description', `round ${round}`] });
          assert.deepEqual(changed.dns, [dn], `node ${name}: a modify is read at once`);
          assert.equal(await session.delete(dn), 0);
          assert.equal((await session.search(dn)).code, 32, `node ${name}: a delete is read at once`);
        }
      } finally {
        session.close();
      }
    }));
  });

  test('writes to entries no other node wrote lately commit in one round trip: none locks first, none runs again', async () => {
    const before = await writeCounts('a');
    const session = await admin('a');
    const writes = 30;
    for (let n = 0; n < writes; n += 1) {
      assert.equal(await session.modify(userDn(100 + n), [{ op: 'replace', attribute: 'description', values: [`one trip ${n}`] }]), 0);
    }
    // A refused write (no such entry) commits nothing and is counted nowhere.
    assert.equal(await session.modify(`uid=nobody,${PEOPLE}`, [{ op: 'replace', attribute: 'description', values: ['x'] }]), 32);
    const after = await writeCounts('a');
    assert.deepEqual({ commits: after.commits - before.commits, lockedFirst: after.lockedFirst - before.lockedFirst, staleRetries: after.staleRetries - before.staleRetries },
      { commits: writes, lockedFirst: 0, staleRetries: 0 });
  });

  test('writes sent at once by many clients share PostgreSQL transactions; each is answered once applied, and every node holds it', async (t) => {
    const before = await writeCounts('a');
    const clients = 16;
    const each = 6;
    const sessions = await Promise.all(Array.from({ length: clients }, () => LdapSession.open(node('a').port, ADMIN)));
    try {
      await Promise.all(sessions.map(async (session, c) => {
        for (let n = 0; n < each; n += 1) {
          const dn = userDn(200 + c * each + n);
          assert.equal(await session.modify(dn, [{ op: 'replace', attribute: 'description', values: [`together ${c}.${n}`] }]), 0);
          const read = await session.search(dn, 'base', { equality: ['description', `together ${c}.${n}`] });
          assert.deepEqual(read.dns, [dn], 'read back at once on the node that wrote it');
        }
      }));
    } finally {
      for (const session of sessions) session.close();
    }
    const after = await writeCounts('a');
    const commits = after.commits - before.commits;
    const transactions = after.transactions - before.transactions;
    assert.equal(commits, clients * each);
    assert.ok(transactions < commits, `${commits} writes in ${transactions} transactions`);
    t.diagnostic(`${commits} writes from ${clients} clients in ${transactions} PostgreSQL transactions`);
    if (sysUnavailable() === undefined) {
      const argv = readFileSync(`/proc/${node('a').process.pid}/cmdline`, 'utf8').split('\0');
      assert.ok(argv.includes('--max-semi-space-size=8'), `a node serves with the larger young generation (bin/young-generation.js): ${argv.join(' ')}`);
    }
    const last = userDn(200 + clients * each - 1);
    for (const name of ['b', 'c']) {
      const holds = async () => (await (await admin(name)).search(last, 'base', { equality: ['description', `together ${clients - 1}.${each - 1}`] })).dns.length === 1;
      assert.ok(await eventually(holds), `node ${name} has the last write`);
    }
  });

  test('increments of one attribute through all three nodes add up exactly (RFC 4525)', async (t) => {
    const dn = `uid=counter,${PEOPLE}`;
    assert.equal(await (await admin('a')).add(dn, person('counter', { objectClass: ['inetOrgPerson', 'extensibleObject'], uidNumber: ['0'] })), 0);
    await everywhere(dn);
    const clientsPerNode = 3;
    const each = 20;
    let busy = 0;
    const before = await Promise.all(['a', 'b', 'c'].map(writeCounts));
    await Promise.all(['a', 'b', 'c'].flatMap((name) => Array.from({ length: clientsPerNode }, async () => {
      const session = await LdapSession.open(node(name).port, ADMIN);
      try {
        for (let n = 0; n < each; n += 1) {
          for (;;) {
            const code = await session.modify(dn, [{ op: 'increment', attribute: 'uidNumber', values: ['1'] }]);
            if (code === 0) break;
            assert.equal(code, 51, `node ${name}: an increment answered ${code}`);
            busy += 1; // the node's copy kept changing under it: nothing was written, so the client tries again
          }
        }
      } finally {
        session.close();
      }
    })));
    const total = 3 * clientsPerNode * each;
    for (const name of ['a', 'b', 'c']) {
      const read = async (): Promise<string[]> => {
        const result = await ldapTool('ldapsearch', node(name).url, ['-LLL', '-b', dn, '-s', 'base', '(objectClass=*)', 'uidNumber'], ADMIN);
        assert.equal(result.code, 0, result.stderr);
        return valuesOf(parseLdifOutput(result.stdout)[0]!, 'uidNumber');
      };
      assert.ok(await eventually(async () => (await read())[0] === String(total)), `node ${name}: uidNumber is ${(await read()).join()}, not ${total}`);
    }
    const after = await Promise.all(['a', 'b', 'c'].map(writeCounts));
    const lockedFirst = after.reduce((sum, counts, i) => sum + counts.lockedFirst - before[i]!.lockedFirst, 0);
    const retries = after.reduce((sum, counts, i) => sum + counts.staleRetries - before[i]!.staleRetries, 0);
    // Sent at once, an increment that read an old value is refused by PostgreSQL (LD001) and runs again, its entry then locked first.
    assert.ok(lockedFirst > 0, 'a contended entry\'s writes lock it first');
    t.diagnostic(`${total} increments from ${3 * clientsPerNode} clients; ${retries} ran again after their copy was found behind, ${lockedFirst} locked the entry first; ${busy} answered busy (51) and were sent again`);
  });

  test('an add under a parent being deleted on another node: never both succeed, no orphan row', async (t) => {
    const rounds = 80;
    const parentDn = (round: number): string => `ou=race-${round},${BASE}`;
    const childDn = (round: number): string => `cn=child,${parentDn(round)}`;
    const writer = await admin('a');
    for (let round = 0; round < rounds; round += 1) {
      assert.equal(await writer.add(parentDn(round), { objectClass: ['organizationalUnit'], ou: [`race-${round}`] }), 0);
    }
    for (let round = 0; round < rounds; round += 1) await everywhere(parentDn(round));
    const outcomes: { deleted: number; added: number }[] = [];
    const lanes = 4;
    await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
      const [b, c] = await Promise.all(['b', 'c'].map((name) => LdapSession.open(node(name).port, ADMIN)));
      try {
        for (let round = lane; round < rounds; round += lanes) {
          const [deleting, adding] = round % 2 === 0 ? [b!, c!] : [c!, b!];
          const [deleted, added] = await Promise.all([
            deleting.delete(parentDn(round)), adding.add(childDn(round), { objectClass: ['applicationProcess'], cn: ['child'] }),
          ]);
          outcomes[round] = { deleted, added };
        }
      } finally {
        b!.close();
        c!.close();
      }
    }));
    const tally = new Map<string, number>();
    for (const { deleted, added } of outcomes) {
      assert.ok(!(deleted === 0 && added === 0), 'the delete of a parent and an add under it both succeeded');
      assert.ok([0, 51, 66].includes(deleted), `the delete answered ${deleted}`);
      assert.ok([0, 32, 51].includes(added), `the add answered ${added}`);
      const key = `delete ${deleted} / add ${added}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
    t.diagnostic(`${rounds} rounds: ${[...tally].map(([key, count]) => `${count} x ${key}`).join(', ')}`);
    const orphans = await cluster.sql('SELECT count(*) FROM leveldap_entries c WHERE c.parent IS NOT NULL AND NOT EXISTS (SELECT 1 FROM leveldap_entries p WHERE p.key = c.parent)');
    assert.equal(orphans.trim(), '0', 'entries whose parent is gone in PostgreSQL');
    const rows = new Set((await queryStore<{ key: string }>(cluster.url, 'SELECT key FROM leveldap_entries WHERE key = ANY($1::text[])', [
      outcomes.flatMap((_, round) => [entryCode(parentDn(round)), entryCode(childDn(round))]),
    ])).map((row) => row.key));
    outcomes.forEach(({ deleted, added }, round) => {
      assert.equal(rows.has(entryCode(parentDn(round))), deleted !== 0, `round ${round}: the parent's row`);
      assert.equal(rows.has(entryCode(childDn(round))), added === 0, `round ${round}: the child's row`);
    });
    for (const [round, { deleted, added }] of outcomes.entries()) {
      await everywhere(parentDn(round), deleted !== 0);
      await everywhere(childDn(round), added === 0);
    }
  });

  test('one entry added on two nodes at once: exactly one add succeeds', async (t) => {
    const rounds = 40;
    const [b, c] = await Promise.all(['b', 'c'].map((name) => LdapSession.open(node(name).port, ADMIN)));
    const tally = new Map<string, number>();
    const times: number[] = [];
    try {
      for (let round = 0; round < rounds; round += 1) {
        const uid = `twice-${round}`;
        const started = performance.now();
        const codes = await Promise.all([b!, c!].map((session) => session.add(`uid=${uid},${PEOPLE}`, person(uid, { description: [session === b ? 'b' : 'c'] }))));
        assert.equal(codes.filter((code) => code === 0).length, 1, `round ${round}: ${codes.join(', ')}`);
        assert.ok(codes.every((code) => code === 0 || code === 68), `round ${round}: ${codes.join(', ')}`);
        times.push(performance.now() - started);
        const key = codes.join(' / ');
        tally.set(key, (tally.get(key) ?? 0) + 1);
      }
    } finally {
      b!.close();
      c!.close();
    }
    t.diagnostic(`${rounds} rounds (b / c): ${[...tally].map(([key, count]) => `${count} x ${key}`).join(', ')}; both answered in ${ms(percentile(times, 0.5))} (p50), ${ms(Math.max(...times))} (max)`);
  });

  test('a node restarted on its --data resumes from its position and sees the writes made while it was down', async () => {
    const old = await terminate('b');
    const writer = await admin('a');
    assert.equal(await writer.modify(userDn(3), [{ op: 'replace', attribute: 'userPassword', values: ['while-b-was-down'] }]), 0);
    assert.equal(await writer.add(`uid=while-down,${PEOPLE}`, person('while-down')), 0);
    assert.equal(await writer.delete(userDn(4)), 0);
    await slotReleased('b');
    const restarted = await startNode('b', { dir: old.dir });
    assert.equal(logged(restarted, RESUMED).length, 1, 'the restarted node resumes');
    assert.equal(logged(restarted, COPIED).length, 0, 'the restarted node does not copy the store again');
    const b = await LdapSession.open(restarted.port);
    try {
      assert.ok(await eventually(async () => (await b.bind(userDn(3), 'while-b-was-down')) === 0), 'the password changed meanwhile binds on b');
      assert.equal(await b.bind(userDn(3), 'password'), 49);
    } finally {
      b.close();
    }
    await everywhere(`uid=while-down,${PEOPLE}`);
    await everywhere(userDn(4), false);
    const b2 = await admin('b');
    assert.deepEqual((await b2.search(PEOPLE, 'one', { equality: ['uid', 'while-down'] })).dns, [`uid=while-down,${PEOPLE}`], 'an add made meanwhile is indexed');
    assert.deepEqual((await b2.search(PEOPLE, 'one', { equality: ['uid', 'user.4'] })).dns, [], 'a delete made meanwhile leaves no index key');
  });

  test('PostgreSQL stopped: binds go on, writes answer 52; reads stop past --max-staleness; started again, all resume', async (t) => {
    await startNode('stale', { args: ['--max-staleness', '2'] });
    const staleUser = await LdapSession.open(node('stale').port);
    const aUser = await LdapSession.open(node('a').port);
    try {
      assert.equal(await staleUser.bind(userDn(5), 'password'), 0);
      const brokeBefore = new Map([...nodes].map(([name, server]) => [name, logged(server, BROKE).length]));
      await cluster.stop('immediate');
      const stopped = performance.now();
      const writeStarted = performance.now();
      const refused = await (await admin('a')).modify(userDn(6), [{ op: 'replace', attribute: 'description', values: ['during the outage'] }]);
      const writeMillis = performance.now() - writeStarted;
      assert.equal(refused, 52, 'a write without PostgreSQL answers unavailable');
      assert.equal(await (await admin('b')).add(`uid=outage,${PEOPLE}`, person('outage')), 52);
      assert.equal(await aUser.bind(userDn(5), 'password'), 0, 'a bind goes on from the local copy');
      const staleMillis = await timeUntil(async () => (await staleUser.search(userDn(5))).code === 52, 30_000, 50);
      assert.equal(await staleUser.bind(userDn(5), 'password'), 52, 'a bind on the stale node answers 52 too');
      assert.equal((await staleUser.search('')).code, 0, 'the root DSE still answers');
      assert.equal(await aUser.bind(userDn(5), 'password'), 0, 'node a (--max-staleness 30) still binds');
      assert.equal(await (await admin('a')).modify(userDn(6), [{ op: 'replace', attribute: 'description', values: ['still down'] }]), 52);
      await sleep(Math.max(0, 5000 - (performance.now() - stopped)));
      const downSeconds = (performance.now() - stopped) / 1000;
      await cluster.start();
      const restarted = performance.now();
      const writer = await admin('a');
      const writeAgain = await timeUntil(async () => (await writer.modify(userDn(6), [{ op: 'replace', attribute: 'description', values: ['after the outage'] }])) === 0, 60_000, 100);
      const outageSeconds = (performance.now() - stopped) / 1000;
      const lsn = (await cluster.sql('SELECT pg_current_wal_lsn()')).trim();
      assert.equal(await writer.add(`uid=after-outage,${PEOPLE}`, person('after-outage')), 0);
      await everywhere(`uid=after-outage,${PEOPLE}`, true, 60_000);
      assert.ok(await eventually(async () => (await staleUser.bind(userDn(5), 'password')) === 0, 30_000), 'the stale node binds again');
      t.diagnostic(`without PostgreSQL: a write answered 52 in ${ms(writeMillis)}; the --max-staleness 2 node refused reads ${ms(staleMillis)} after the stop; down ${downSeconds.toFixed(1)} s; writes worked again ${ms(writeAgain)} after the start`);
      for (const [name, server] of nodes) {
        const retries = logged(server, BROKE).length - (brokeBefore.get(name) ?? 0);
        assert.ok(retries <= Math.ceil(outageSeconds) + 3, `node ${name}: ${retries} broken streams logged in ${outageSeconds.toFixed(1)} s (one try a second)`);
      }
      assert.ok(await eventually(() => slotsAcknowledged(lsn), 30_000), 'every node streams from its slot again and acknowledges what it applied');
      const quiet = new Map([...nodes].map(([name, server]) => [name, logged(server, BROKE).length]));
      await sleep(3000);
      for (const [name, server] of nodes) assert.equal(logged(server, BROKE).length, quiet.get(name), `node ${name} keeps retrying after the restart`);
      t.diagnostic(`PostgreSQL was started again ${ms(performance.now() - restarted)} ago; no node retries any more`);
    } finally {
      staleUser.close();
      aUser.close();
    }
  });

  test('PostgreSQL hung (every process stopped with SIGSTOP): a write answers instead of waiting for ever; resumed, writes work and every node streams again', async (t) => {
    const postmaster = readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    const children = (await run('pgrep', ['-P', postmaster])).stdout.split('\n').filter(Boolean);
    const pids = [postmaster, ...children].map(Number);
    const brokeBefore = new Map([...nodes].map(([name, server]) => [name, logged(server, BROKE).length]));
    const writer = await admin('a');
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    let resumed = false;
    const resume = () => {
      if (resumed) return;
      resumed = true;
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    };
    try {
      const started = performance.now();
      const code = await Promise.race([
        writer.modify(userDn(7), [{ op: 'replace', attribute: 'description', values: ['while hung'] }]),
        sleep(40_000).then(() => -1),
      ]);
      const answered = performance.now() - started;
      assert.ok(code === 52 || code === 80, `the write answered ${code === -1 ? 'nothing in 40 s' : code}`);
      t.diagnostic(`with PostgreSQL hung, a write answered ${code} after ${ms(answered)}`);
      await sleep(Math.max(0, 12_000 - answered)); // past the stream's silence limit
    } finally {
      resume();
    }
    const lsn = (await cluster.sql('SELECT pg_current_wal_lsn()')).trim();
    assert.ok(await eventually(async () => (await writer.modify(userDn(7), [{ op: 'replace', attribute: 'description', values: ['resumed'] }])) === 0, 60_000), 'writes work again');
    assert.equal(await writer.add(`uid=after-hang,${PEOPLE}`, person('after-hang')), 0);
    await everywhere(`uid=after-hang,${PEOPLE}`, true, 60_000);
    assert.ok(await eventually(() => slotsAcknowledged(lsn), 30_000), 'every node streams from its slot again and acknowledges what it applied');
    for (const [name, server] of nodes) {
      assert.ok(logged(server, BROKE).length > (brokeBefore.get(name) ?? 0), `node ${name} found its silent stream broken and started it again`);
    }
  });

  test('a node joining a populated store while it is written copies it and answers for entries late in the load and after it', async (t) => {
    const writer = await LdapSession.open(node('a').port, ADMIN);
    const written: string[] = [];
    let joining = true;
    const writes = (async () => {
      for (let n = 0; joining || n < 5; n += 1) {
        const uid = `during-join-${n}`;
        assert.equal(await writer.add(`uid=${uid},${PEOPLE}`, person(uid)), 0);
        assert.equal(await writer.modify(userDn(7), [{ op: 'replace', attribute: 'description', values: [uid] }]), 0);
        written.push(uid);
      }
    })();
    const joined = await startNode('joined').finally(() => { joining = false; });
    await writes;
    writer.close();
    t.diagnostic(`joined: ${copyTime('joined')}, while ${written.length} adds and modifies were made through a`);
    const session = await LdapSession.open(joined.port, ADMIN);
    try {
      assert.deepEqual((await session.search(PEOPLE, 'one', { equality: ['uid', `user.${USERS - 1}`] })).dns, [userDn(USERS - 1)]);
      assert.equal(await session.bind(userDn(USERS - 2), 'password'), 0, 'an entry of the load binds on the new node');
      assert.ok(await session.exists(`uid=after-outage,${PEOPLE}`));
      const last = written.at(-1)!;
      assert.ok(await eventually(async () => (await session.search(userDn(7), 'base', { equality: ['description', last] })).dns.length === 1), 'the last modify made during the join is there');
      const found = new Set((await session.search(PEOPLE, 'one', { contains: ['uid', 'during-join-'] })).dns);
      assert.deepEqual(written.filter((uid) => !found.has(`uid=${uid},${PEOPLE}`)), [], 'adds made during the join missing on the new node');
      assert.equal(await session.bind(ADMIN_DN, ADMIN_PASSWORD), 0);
      assert.equal(await (await admin('a')).add(`uid=late,${PEOPLE}`, person('late')), 0);
      assert.ok(await eventually(async () => (await session.search(PEOPLE, 'one', { equality: ['uid', 'late'] })).dns.length === 1), 'an entry added after the join is found');
    } finally {
      session.close();
    }
  });

  test('SIGKILL a node during an 8-client write burst: nothing acknowledged is lost, every export equals PostgreSQL', async (t) => {
    const burstDn = `ou=Burst,${BASE}`;
    assert.equal(await (await admin('a')).add(burstDn, { objectClass: ['organizationalUnit'], ou: ['Burst'] }), 0);
    await everywhere(burstDn);
    const victim = node('c');
    const exit = once(victim.process, 'exit');
    const { adds, values } = await burstUntilKilled(victim, burstDn, 240);
    assert.equal((await exit)[1], 'SIGKILL');
    nodes.delete('c');
    await slotReleased('c');
    const restarted = await startNode('c', { dir: victim.dir });
    assert.equal(logged(restarted, RESUMED).length, 1, 'the killed node resumes from its position');
    const rows = new Set((await queryStore<{ key: string }>(cluster.url, 'SELECT key FROM leveldap_entries')).map((row) => row.key));
    assert.deepEqual(adds.filter((dn) => !rows.has(entryCode(dn))), [], 'acknowledged adds missing in PostgreSQL');
    for (const name of nodes.keys()) {
      assert.ok(await eventually(async () => (await missingAdds(name, burstDn, adds)).length === 0, 30_000), `node ${name} lacks acknowledged adds`);
      assert.ok(await eventually(async () => (await missingValues(name, values)).length === 0, 30_000), `node ${name} lacks acknowledged values`);
    }
    t.diagnostic(`${adds.length} adds and ${values.length} modifies acknowledged by node c before it was killed; all in PostgreSQL and on every node`);
    assert.equal(await (await admin('a')).add(`uid=final,${PEOPLE}`, person('final')), 0);
    await everywhere(`uid=final,${PEOPLE}`);
    const dirs = new Map([...nodes].map(([name, server]) => [name, server.dataDir]));
    for (const name of [...nodes.keys()]) await terminate(name);
    const expected = await postgresContent(cluster.url);
    for (const [name, dir] of dirs) {
      const differences = contentDifferences(expected, await exportContent(dir));
      assert.deepEqual(differences, [], `node ${name}'s export differs from PostgreSQL's ${expected.size} entries`);
    }
    t.diagnostic(`the exports of ${dirs.size} nodes equal PostgreSQL's ${expected.size} entries`);
  });
});
