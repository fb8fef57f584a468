/**
 * Modify DN of a non-leaf entry through `leveldap serve`, driven with OpenLDAP's clients:
 * ldapmodrdn and ldapmodify (changetype: modrdn with newsuperior) move a subtree, ldapsearch
 * finds every entry under its new DN (one-level at each level, the uid index, memberOf and
 * (memberOf=G) on the moved users, the groups' values rewritten); --max-subtree-rename refuses
 * a larger subtree (53) and the other refusals stay. Then a subtree of thousands of entries:
 * an acknowledged rename survives kill -9, and a rename killed with SIGKILL while it runs
 * leaves every entry under the old name or every entry under the new one, memberships with it;
 * killed while LevelDB appends the batch to its log, the torn batch is dropped whole. And adds
 * from 8 connections on two serving threads under a subtree while it moves: each acknowledged
 * one moved with it, every other one refused (noSuchObject), no orphan.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findProgram } from '../../src/harness/slapd.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { parseLdifOutput, valuesOf, RawConnection } from '../helpers/ldap-client.js';
import { adminClient as client, adminTool as tool, type AdminClient as Client } from '../helpers/admin-client.js';
import { addRequest, answer, bindRequest, exchange, modifyDnRequest } from '../helpers/ldap-requests.js';

const BASE = 'dc=example,dc=com';
const PEOPLE = `ou=People,${BASE}`;
const GROUPS = `ou=Groups,${BASE}`;

const TOOLS = ['ldapsearch', 'ldapmodify', 'ldapmodrdn'];
const missing = TOOLS.filter((tool) => findProgram(tool) === undefined);
const skip = missing.length > 0 ? `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils` : false;

const ldif = (...lines: string[]) => `${lines.join('\n')}\n`;
const unit = (dn: string) => ldif(`dn: ${dn}`, 'objectClass: organizationalUnit', `ou: ${dn.slice(3, dn.indexOf(','))}`);
const person = (dn: string) => {
  const uid = dn.slice(4, dn.indexOf(','));
  return ldif(`dn: ${dn}`, 'objectClass: inetOrgPerson', `uid: ${uid}`, `cn: ${uid}`, 'sn: Mover');
};
const group = (dn: string, members: readonly string[]) => ldif(`dn: ${dn}`, 'objectClass: groupOfNames', `cn: ${dn.slice(3, dn.indexOf(','))}`, ...members.map((member) => `member: ${member}`));
const lower = (dns: readonly string[]) => dns.map((dn) => dn.toLowerCase()).sort();

/** The DNs (lower-case, sorted) a search finds; [] when the base does not exist (32). */
async function search(c: Client, base: string, filter = '(objectClass=*)', scope = 'sub'): Promise<string[]> {
  const result = await tool(c, 'ldapsearch', ['-LLL', '-o', 'ldif-wrap=no', '-s', scope, '-b', base, filter, '1.1']);
  if (result.code === 32) return [];
  assert.equal(result.code, 0, result.stderr);
  return lower(parseLdifOutput(result.stdout).map((entry) => entry.dn));
}

/** One attribute's values of the entry `dn`, as written. */
async function values(c: Client, dn: string, attribute: string): Promise<string[]> {
  const result = await tool(c, 'ldapsearch', ['-LLL', '-o', 'ldif-wrap=no', '-b', dn, '-s', 'base', '(objectClass=*)', attribute]);
  assert.equal(result.code, 0, `${dn}: ${result.stderr}`);
  return valuesOf(parseLdifOutput(result.stdout)[0]!, attribute);
}

/**
 * ou=Sales: ou=East (s0..s3), ou=West (s4, s5), cn=team (s0, s4, user.1); ou=Groups: cn=staff
 * (s1, s5, cn=team,ou=Sales). ou=Big: 12 users, one more than --max-subtree-rename allows.
 */
const SALES = `ou=Sales,${BASE}`;
const salesUser = (n: number, sales = SALES) => `uid=s${n},ou=${n < 4 ? 'East' : 'West'},${sales}`;
const BIG = `ou=Big,${BASE}`;
const SMALL_LDIF = [
  unit(GROUPS), unit(SALES), unit(`ou=East,${SALES}`), unit(`ou=West,${SALES}`),
  ...Array.from({ length: 6 }, (_, n) => person(salesUser(n))),
  group(`cn=team,${SALES}`, [salesUser(0), salesUser(4), `uid=user.1,${PEOPLE}`]),
  group(`cn=staff,${GROUPS}`, [salesUser(1), salesUser(5), `cn=team,${SALES}`]),
  unit(BIG), ...Array.from({ length: 12 }, (_, n) => person(`uid=b${n},${BIG}`)),
].join('\n');
const SALES_ENTRIES = 10;

describe('leveldap serve: modify DN of a subtree with ldapmodrdn and ldapmodify', { skip }, () => {
  let c: Client;

  before(async () => { c = client(await startLeveldap({ users: 5, ldif: SMALL_LDIF, args: ['--max-subtree-rename', String(SALES_ENTRIES + 2)] })); });
  after(async () => { await c?.server.stop(); });

  test('ldapmodrdn renames ou=Sales with everything below; searches, indexes, memberOf and the groups follow', async () => {
    const renamed = await tool(c, 'ldapmodrdn', ['-r', SALES, 'ou=Revenue']);
    assert.equal(renamed.code, 0, renamed.stderr);
    const revenue = `ou=Revenue,${BASE}`;
    assert.deepEqual(await search(c, SALES), [], 'the old DN is gone (noSuchObject)');
    const all = await search(c, revenue);
    assert.equal(all.length, SALES_ENTRIES, all.join(' '));
    assert.deepEqual(await search(c, revenue, '(objectClass=*)', 'one'), lower([`cn=team,${revenue}`, `ou=East,${revenue}`, `ou=West,${revenue}`]));
    assert.deepEqual(await search(c, `ou=West,${revenue}`, '(objectClass=*)', 'one'), lower([salesUser(4, revenue), salesUser(5, revenue)]));
    assert.deepEqual(await search(c, BASE, '(uid=s4)'), lower([salesUser(4, revenue)]), 'the uid index has the new DN');
    assert.deepEqual((await values(c, salesUser(0, revenue), 'memberOf')), [`cn=team,${revenue}`]);
    assert.deepEqual((await values(c, salesUser(1, revenue), 'memberOf')), [`cn=staff,${GROUPS}`]);
    assert.deepEqual(await values(c, `cn=staff,${GROUPS}`, 'member'), [salesUser(1, revenue), salesUser(5, revenue), `cn=team,${revenue}`]);
    assert.deepEqual(await values(c, `cn=team,${revenue}`, 'member'), [salesUser(0, revenue), salesUser(4, revenue), `uid=user.1,${PEOPLE}`]);
    assert.deepEqual(await search(c, BASE, `(memberOf=cn=team,${revenue})`), lower([salesUser(0, revenue), salesUser(4, revenue), `uid=user.1,${PEOPLE}`]));
    assert.deepEqual(await values(c, `uid=user.1,${PEOPLE}`, 'memberOf'), [`cn=team,${revenue}`], 'an outside member of a moved group');
    assert.deepEqual(await search(c, BASE, `(memberOf=cn=team,${SALES})`), []);
  });

  test('ldapmodify changetype: modrdn with newsuperior moves the subtree under ou=People', async () => {
    const revenue = `ou=Revenue,${BASE}`;
    const moved = `ou=Revenue,${PEOPLE}`;
    const result = await tool(c, 'ldapmodify', [], ldif(`dn: ${revenue}`, 'changetype: modrdn', 'newrdn: ou=Revenue', 'deleteoldrdn: 1', `newsuperior: ${PEOPLE}`));
    assert.equal(result.code, 0, result.stderr);
    assert.ok((await search(c, PEOPLE, '(ou=Revenue)', 'one')).includes(moved.toLowerCase()));
    assert.deepEqual(await search(c, BASE, '(ou=Revenue)', 'one'), []);
    assert.equal((await search(c, moved)).length, SALES_ENTRIES);
    assert.deepEqual(await search(c, `ou=East,${moved}`, '(uid=*)', 'one'), lower([0, 1, 2, 3].map((n) => salesUser(n, moved))));
    assert.deepEqual((await values(c, salesUser(5, moved), 'memberOf')), [`cn=staff,${GROUPS}`]);
    assert.deepEqual((await values(c, `cn=team,${moved}`, 'memberOf')), [`cn=staff,${GROUPS}`], 'a moved group is still a member');
    assert.deepEqual(await search(c, BASE, `(memberOf=cn=staff,${GROUPS})`), lower([salesUser(1, moved), salesUser(5, moved), `cn=team,${moved}`]));
  });

  test('past --max-subtree-rename unwillingToPerform (53) naming the flag, nothing moved; the other refusals stay', async () => {
    const refused = await tool(c, 'ldapmodrdn', ['-r', BIG, 'ou=Huge']);
    assert.equal(refused.code, 53, refused.stderr);
    assert.match(refused.stdout + refused.stderr, /holds more than 12 entries; a modify DN moves at most 12 \(--max-subtree-rename\)/);
    assert.equal((await search(c, BIG)).length, 13);
    const moved = `ou=Revenue,${PEOPLE}`;
    const exists = await tool(c, 'ldapmodrdn', ['-r', `ou=East,${moved}`, 'ou=West']);
    assert.equal(exists.code, 68, exists.stderr);
    const below = await tool(c, 'ldapmodrdn', ['-r', '-s', `ou=West,${moved}`, moved, 'ou=Revenue']);
    assert.equal(below.code, 53, below.stderr);
    const nowhere = await tool(c, 'ldapmodrdn', ['-r', '-s', `ou=Nowhere,${BASE}`, moved, 'ou=Revenue']);
    assert.equal(nowhere.code, 32, nowhere.stderr);
    assert.equal((await search(c, moved)).length, SALES_ENTRIES);
  });
});

/** ou=Tree: 10 units of 499 users (5,001 entries), cn=inner in it, cn=outer in ou=Groups naming 1,000 of its users. */
const UNITS = 10;
const PER_UNIT = 499;
const TREE_ENTRIES = 1 + UNITS * (PER_UNIT + 1) + 1;
const treeUser = (n: number, tree: string) => `uid=t${n},ou=U${n % UNITS},${tree}`;
const OUTER = `cn=outer,${GROUPS}`;
const OUTER_MEMBERS = 1000;
const INNER_MEMBERS = 50;

function treeLdif(tree: string): string {
  const records = [unit(GROUPS), unit(tree), ...Array.from({ length: UNITS }, (_, u) => unit(`ou=U${u},${tree}`))];
  for (let n = 0; n < UNITS * PER_UNIT; n += 1) records.push(person(treeUser(n, tree)));
  records.push(group(`cn=inner,${tree}`, [...Array.from({ length: INNER_MEMBERS }, (_, n) => treeUser(n, tree)), `uid=user.1,${PEOPLE}`]));
  records.push(group(OUTER, Array.from({ length: OUTER_MEMBERS }, (_, n) => treeUser(n, tree))));
  return records.join('\n');
}

describe('leveldap serve: a subtree of thousands of entries renamed, and SIGKILL', { skip }, () => {
  const OLD = `ou=Tree,${BASE}`;
  const NEW = `ou=Forest,${BASE}`;
  let first: LeveldapServer;
  let current: LeveldapServer;

  before(async () => {
    first = await startLeveldap({ users: 5, ldif: treeLdif(OLD), startTimeoutMs: 60_000 });
    current = first;
  });
  after(async () => {
    if (current !== first) await current.stop();
    await first?.stop();
  });

  async function adminConnection(server: LeveldapServer): Promise<RawConnection> {
    const connection = await RawConnection.open(server.port);
    const bound = await exchange(connection, 1, bindRequest(1, server.adminDn, server.adminPassword));
    assert.equal(bound.code, 0, bound.message);
    return connection;
  }

  /** When to kill the server: once the rename is answered, some time after it was sent, or once LevelDB's log has grown so much. */
  interface Kill {
    readonly afterMs?: number;
    readonly afterLogBytes?: number;
  }

  /** Sends the rename of `from` to `rdn`, SIGKILLs the server as `kill` says (at the latest once answered), and restarts it. */
  async function renameThenKill(from: string, rdn: string, kill: Kill = {}): Promise<{ code: number | undefined; millis: number; logBytes: number }> {
    const connection = await adminConnection(current);
    const exit = once(current.process, 'exit');
    const log = new LogGrowth(current.dataDir);
    let killed = false;
    const stop = () => {
      if (!killed) current.process.kill('SIGKILL');
      killed = true;
    };
    const sent = performance.now();
    connection.write(modifyDnRequest(2, from, rdn, true));
    const timer = kill.afterMs === undefined ? undefined : setTimeout(stop, kill.afterMs);
    const watch = kill.afterLogBytes === undefined ? undefined : setInterval(() => { if (log.bytes() >= kill.afterLogBytes!) stop(); }, 1);
    const response = await answer(connection, 2, 60_000);
    const millis = performance.now() - sent;
    const logBytes = log.bytes();
    clearTimeout(timer);
    clearInterval(watch);
    stop();
    const [, signal] = await exit;
    assert.equal(signal, 'SIGKILL');
    connection.destroy();
    if (current !== first) await current.stop();
    current = await startLeveldap({ dir: first.dir, startTimeoutMs: 60_000 });
    return { code: response?.code, millis, logBytes };
  }

  /** Every entry under `OLD` or every entry under `NEW`, never both, the groups naming that side; returns it. */
  async function assertWhole(): Promise<string> {
    const c = client(current);
    const [old, renamed] = [await search(c, OLD), await search(c, NEW)];
    assert.ok((old.length === TREE_ENTRIES && renamed.length === 0) || (old.length === 0 && renamed.length === TREE_ENTRIES),
      `all or nothing: ${old.length} entries under the old name, ${renamed.length} under the new one`);
    const side = old.length > 0 ? OLD : NEW;
    const outer = await values(c, OUTER, 'member');
    assert.equal(outer.length, OUTER_MEMBERS);
    assert.deepEqual(outer.filter((member) => !member.endsWith(`,${side}`)), [], 'the outside group names the side the entries are on');
    const found = await search(c, BASE, `(memberOf=${OUTER})`);
    assert.equal(found.length, OUTER_MEMBERS, '(memberOf=G) finds every member');
    assert.ok(found.every((dn) => dn.endsWith(`,${side.toLowerCase()}`)));
    assert.deepEqual((await values(c, treeUser(7, side), 'memberOf')).sort(), [OUTER, `cn=inner,${side}`].sort());
    assert.deepEqual(await values(c, `uid=user.1,${PEOPLE}`, 'memberOf'), [`cn=inner,${side}`]);
    assert.equal((await search(c, side, `(memberOf=cn=inner,${side})`)).length, INNER_MEMBERS);
    return side;
  }

  let renameMillis = 0;
  let renameLogBytes = 0;

  test(`an acknowledged rename of ${TREE_ENTRIES} entries survives kill -9 right after the answer`, async (t) => {
    const { code, millis, logBytes } = await renameThenKill(OLD, 'ou=Forest');
    assert.equal(code, 0);
    renameMillis = millis;
    renameLogBytes = logBytes;
    t.diagnostic(`the rename was answered after ${Math.round(millis)} ms; LevelDB's log grew by ${logBytes} bytes`);
    assert.ok(logBytes > 1_000_000, 'one batch of several MB');
    assert.equal(await assertWhole(), NEW);
  });

  test('SIGKILL while the rename runs, at several points: after each restart all entries are under one name, memberships with them', async (t) => {
    assert.ok(renameMillis > 0, 'the acknowledged rename ran first');
    let killedUnanswered = 0;
    let side = NEW;
    for (const fraction of [0.2, 0.5, 0.8, 0.95]) {
      const [from, rdn, other] = side === NEW ? [NEW, 'ou=Tree', OLD] : [OLD, 'ou=Forest', NEW];
      const { code } = await renameThenKill(from, rdn, { afterMs: Math.round(renameMillis * fraction) });
      if (code === undefined) killedUnanswered += 1;
      const now = await assertWhole();
      t.diagnostic(`killed at ${Math.round(fraction * 100)}% of ${Math.round(renameMillis)} ms: ${code === undefined ? 'no answer' : `answered ${code}`}, the entries under ${now}`);
      if (code === 0) assert.equal(now, other, 'an acknowledged rename is kept');
      side = now;
    }
    assert.ok(killedUnanswered >= 1, 'at least one rename was killed before its answer');
  });

  test('SIGKILL while LevelDB appends the batch to its log (1/8, 1/2, 7/8 of it there): a torn batch is dropped whole at restart', async (t) => {
    let torn = 0;
    for (const part of [8, 2, 8 / 7]) {
      const from = (await search(client(current), OLD)).length > 0 ? OLD : NEW;
      const { code, logBytes } = await renameThenKill(from, from === OLD ? 'ou=Forest' : 'ou=Tree', { afterLogBytes: Math.round(renameLogBytes / part) });
      const now = await assertWhole();
      t.diagnostic(`killed with the log grown by ${logBytes} of ${renameLogBytes} bytes: ${code === undefined ? 'no answer' : `answered ${code}`}, the entries under ${now}`);
      // The batch of a rename back to ou=Tree is a little smaller (its DNs are shorter): torn below 95% of the first one's.
      if (logBytes < renameLogBytes * 0.95) {
        torn += 1;
        assert.equal(code, undefined, 'no answer before the batch is written');
        assert.equal(now, from, 'the batch was torn: every entry under the old name');
      }
    }
    assert.ok(torn >= 1, 'at least one kill tore the batch');
  });
});

describe('leveldap serve --threads 2: adds under a subtree from 16 connections while it moves', { skip }, () => {
  const CROWD = `ou=Crowd,${BASE}`;
  const MOVED = `ou=Crowd,${PEOPLE}`;
  const CROWD_ENTRIES = 1 + 10 * 151;
  let server: LeveldapServer;

  before(async () => {
    const records = [unit(CROWD), ...Array.from({ length: 10 }, (_, u) => unit(`ou=U${u},${CROWD}`))];
    for (let n = 0; n < 1500; n += 1) records.push(person(`uid=c${n},ou=U${n % 10},${CROWD}`));
    server = await startLeveldap({ users: 5, ldif: records.join('\n'), args: ['--threads', '2'] });
  });
  after(async () => { await server?.stop(); });

  test('every add acknowledged is moved with the subtree, every other one refused (32): no orphan, nothing under the old name', async (t) => {
    const acked: string[] = [];
    const refused = new Map<number, number>();
    let renamed = false;
    let afterRename = 0;
    // 16 connections: the kernel spreads them over the two threads by a hash, and 8 all landed on one about once in 128 runs
    const connections = await Promise.all(Array.from({ length: 16 }, async () => {
      const connection = await RawConnection.open(server.port);
      assert.equal((await exchange(connection, 1, bindRequest(1, server.adminDn, server.adminPassword))).code, 0);
      return connection;
    }));
    const adders = connections.map(async (connection, c) => {
      for (let n = 0, id = 2; afterRename < 40; n += 1, id += 1) {
        const uid = `racer-${c}-${n}`;
        const dn = `uid=${uid},ou=U${n % 10},${CROWD}`;
        connection.write(addRequest(id, dn, [['objectClass', ['account']], ['uid', [uid]]]));
        const response = await answer(connection, id);
        assert.ok(response, `no answer to the add of ${dn}`);
        if (renamed) afterRename += 1;
        if (response.code === 0) acked.push(dn);
        else refused.set(response.code!, (refused.get(response.code!) ?? 0) + 1);
      }
    });
    const mover = (async () => {
      while (acked.length < 40) await new Promise((resolve) => setTimeout(resolve, 5));
      const connection = await RawConnection.open(server.port);
      assert.equal((await exchange(connection, 1, bindRequest(1, server.adminDn, server.adminPassword))).code, 0);
      const response = await exchange(connection, 2, modifyDnRequest(2, CROWD, 'ou=Crowd', true, PEOPLE));
      renamed = true;
      connection.destroy();
      return response;
    })();
    const [moved] = await Promise.all([mover, ...adders]);
    connections.forEach((connection) => connection.destroy());
    assert.equal(moved.code, 0, moved.message);
    t.diagnostic(`${acked.length} adds acknowledged, refused: ${JSON.stringify(Object.fromEntries(refused))}`);
    assert.deepEqual([...refused.keys()], [32], 'the adds after the move find no parent');
    const c = client(server);
    assert.deepEqual(await search(c, CROWD), [], 'nothing left under the old name');
    const all = new Set(await search(c, MOVED));
    assert.equal(all.size, CROWD_ENTRIES + acked.length);
    const lost = acked.map((dn) => dn.replace(CROWD, MOVED).toLowerCase()).filter((dn) => !all.has(dn));
    assert.deepEqual(lost, [], 'every acknowledged add moved with its parent');
    const addThreads = () => new Set(server.logs().flatMap((line) => {
      const record = JSON.parse(line) as { op?: string; thread?: number };
      return record.op === 'add' ? [record.thread] : [];
    }));
    // the other thread's log lines come through the first: wait for them a while (at most 5 s)
    for (let waited = 0; addThreads().size < 2 && waited < 5000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(addThreads().size, 2, 'the adds were served by both threads');
  });
});

/**
 * How much LevelDB's write-ahead logs (the *.log files of the database directory) have grown
 * since this was made: a batch is appended to the log in pieces as it is written.
 */
class LogGrowth {
  private readonly start: Map<string, number>;

  constructor(private readonly dir: string) {
    this.start = this.sizes();
  }

  bytes(): number {
    let grown = 0;
    for (const [name, size] of this.sizes()) grown += Math.max(0, size - (this.start.get(name) ?? 0));
    return grown;
  }

  private sizes(): Map<string, number> {
    const sizes = new Map<string, number>();
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.log')) continue;
      try {
        sizes.set(name, statSync(join(this.dir, name)).size);
      } catch {
        // deleted meanwhile (LevelDB removes a log once its memtable is in a table)
      }
    }
    return sizes;
  }
}
