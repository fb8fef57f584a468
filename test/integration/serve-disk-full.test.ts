/**
 * Writes after a transient disk full. `leveldap serve` runs on a database in a 20 MB tmpfs
 * (mounted by the test, so root only); the tmpfs is filled until ENOSPC, writes fail and reads
 * go on; the filler is removed, adds and modifies are retried until they succeed, then the
 * server is restarted (SIGTERM or SIGKILL, one serving thread or serve's default) and every
 * write that was answered success must be there.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findProgram } from '../../src/harness/slapd.js';
import { populateDatabase, startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf, RawConnection, type Credentials } from '../helpers/ldap-client.js';
import { addRequest, answer, bindRequest, exchange, modifyRequest } from '../helpers/ldap-requests.js';
import { mountTmpfs, tmpfsUnavailable, type Tmpfs } from '../helpers/tmpfs.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const USERS = 20;
/** Values this long fill the tmpfs's last page of the database log in a few writes. */
const PADDING = 'x'.repeat(1000);

const missing = ['ldapsearch'].filter((tool) => findProgram(tool) === undefined);
const skip = tmpfsUnavailable() || (missing.length > 0 && `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils`);
if (skip) console.log(`# serve-disk-full skipped: ${skip}`);

/** The writes a scenario made and how they were answered. */
class WriteLog {
  readonly addsAcked: string[] = [];
  readonly valuesAcked: { dn: string; value: string }[] = [];
  readonly failures = new Map<number, number>();
  private id = 1;
  private n = 0;

  constructor(private readonly connection: RawConnection, private readonly tag: string) {}

  /** One add (even n) or modify (odd n) with a 1 KB value; resolves with its result code. */
  async next(): Promise<number> {
    const n = (this.n += 1);
    const id = (this.id += 1);
    const value = `${this.tag}-${n}-${PADDING}`;
    const dn = n % 2 === 0 ? `uid=${this.tag}-${n},${PEOPLE}` : `uid=user.${n % USERS},${PEOPLE}`;
    const request = n % 2 === 0
      ? addRequest(id, dn, [['objectClass', ['account']], ['uid', [`${this.tag}-${n}`]], ['description', [value]]])
      : modifyRequest(id, dn, [{ op: 'add', attribute: 'description', values: [value] }]);
    this.connection.write(request);
    const response = await answer(this.connection, id, 20_000);
    assert.ok(response, `no answer to write ${n}`);
    const code = response.code!;
    if (code === 0 && n % 2 === 0) this.addsAcked.push(dn.toLowerCase());
    else if (code === 0) this.valuesAcked.push({ dn: dn.toLowerCase(), value });
    else this.failures.set(code, (this.failures.get(code) ?? 0) + 1);
    return code;
  }

  get acked(): number {
    return this.addsAcked.length + this.valuesAcked.length;
  }
}

async function adminConnection(server: LeveldapServer): Promise<RawConnection> {
  const connection = await RawConnection.open(server.port);
  const bound = await exchange(connection, 1, bindRequest(1, server.adminDn, server.adminPassword));
  assert.equal(bound.code, 0, bound.message);
  return connection;
}

async function search(server: LeveldapServer, filter: string, attribute: string): Promise<Map<string, string[]>> {
  const admin: Credentials = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
  const result = await ldapTool('ldapsearch', server.url, ['-LLL', '-o', 'ldif-wrap=no', '-b', PEOPLE, filter, attribute], admin);
  assert.equal(result.code, 0, result.stderr);
  return new Map(parseLdifOutput(result.stdout).map((entry) => [entry.dn.toLowerCase(), valuesOf(entry, attribute)]));
}

interface LogLine {
  readonly msg?: string;
  readonly level?: number;
  readonly thread?: number;
  readonly threads?: number;
  readonly op?: string;
  readonly dn?: string;
}

const logLines = (server: LeveldapServer): LogLine[] => server.logs().flatMap((line) => {
  try {
    return [JSON.parse(line) as LogLine];
  } catch {
    return [];
  }
});

/**
 * Adds through new connections while writes are suspended, each refused with 52, until one was
 * refused by each serving thread (a write's thread is read from its access log line); at most
 * 40 connections.
 */
async function refusedOnEveryThread(server: LeveldapServer, tag: string): Promise<void> {
  const threads = logLines(server).find((line) => line.msg === 'leveldap is listening')?.threads ?? 1;
  const seen = new Set<number>();
  for (let n = 0; n < 40 && seen.size < threads; n += 1) {
    const connection = await adminConnection(server);
    const dn = `uid=${tag}-probe-${n},${PEOPLE}`;
    const added = await exchange(connection, 2, addRequest(2, dn, [['objectClass', ['account']], ['uid', [`${tag}-probe-${n}`]]]));
    connection.destroy();
    assert.equal(added.code, 52, `a write while writes are suspended is refused with 52 (${added.message})`);
    await sleep(50); // a serving thread's log lines reach the main thread on its next turn
    const line = logLines(server).find((candidate) => candidate.op === 'add' && candidate.dn === dn);
    assert.ok(line, `the access log has the add of ${dn}`);
    seen.add(line.thread ?? 0);
  }
  assert.equal(seen.size, threads, `writes were refused on each of the ${threads} serving threads`);
}

/** A directory of USERS users in the tmpfs, laid out as startLeveldap's `dir` wants it. */
async function prepare(disk: Tmpfs): Promise<void> {
  await writeFile(join(disk.path, 'admin-password'), 'disk-full-admin-secret', { mode: 0o600 });
  await populateDatabase(join(disk.path, 'db'), USERS);
}

/** Writes while the disk is full: some may still fit in the log's last page, then they fail. */
async function writeWhileFull(writes: WriteLog): Promise<void> {
  for (let attempt = 0; attempt < 200 && writes.failures.size === 0; attempt += 1) await writes.next();
  assert.ok(writes.failures.size > 0, 'a write failed while the disk was full');
  for (let more = 0; more < 3; more += 1) assert.notEqual(await writes.next(), 0, 'writes keep failing while the disk is full');
  for (const code of writes.failures.keys()) assert.ok(code === 80 || code === 52, `a write on a full disk answers 80 or 52, not ${code}`);
}

/** Retries writes after the disk has room again until one succeeds (at most `ms`), then makes `more`. */
async function writeAfterFree(writes: WriteLog, more: number, ms: number): Promise<number> {
  const begun = performance.now();
  while ((await writes.next()) !== 0) {
    assert.ok(performance.now() - begun < ms, `writes did not resume within ${ms} ms of the disk having room`);
    await sleep(100);
  }
  const resumedAfter = performance.now() - begun;
  for (let n = 0; n < more; n += 1) assert.equal(await writes.next(), 0, 'writes go on once they resumed');
  return resumedAfter;
}

async function restart(server: LeveldapServer, signal: 'SIGTERM' | 'SIGKILL', dir: string, args: string[]): Promise<LeveldapServer> {
  if (signal === 'SIGTERM') {
    const exit = await server.terminate();
    assert.equal(exit.code, 0, `serve exits 0 on SIGTERM\n${server.stderr()}`);
  } else {
    const exit = once(server.process, 'exit');
    server.process.kill('SIGKILL');
    await exit;
  }
  return startLeveldap({ dir, args });
}

async function checkAcked(server: LeveldapServer, writes: WriteLog, tag: string): Promise<void> {
  const added = await search(server, `(uid=${tag}-*)`, 'uid');
  const lostAdds = writes.addsAcked.filter((dn) => !added.has(dn));
  assert.deepEqual(lostAdds, [], `${lostAdds.length} of ${writes.addsAcked.length} acknowledged adds are missing after the restart`);
  const described = await search(server, `(description=${tag}-*)`, 'description');
  const lostValues = writes.valuesAcked.filter(({ dn, value }) => !(described.get(dn) ?? []).includes(value));
  assert.deepEqual(lostValues.map(({ dn, value }) => `${dn}: ${value.slice(0, 20)}`), [],
    `${lostValues.length} of ${writes.valuesAcked.length} acknowledged modifies are missing after the restart`);
}

const SCENARIOS = [
  { threads: '1', signal: 'SIGTERM' },
  { threads: '1', signal: 'SIGKILL' },
  { threads: 'default', signal: 'SIGTERM' },
  { threads: 'default', signal: 'SIGKILL' },
] as const;

describe('leveldap serve: a transient disk full loses no acknowledged write', { skip }, () => {
  for (const { threads, signal } of SCENARIOS) {
    test(`threads ${threads}: fill the disk, free it, write, ${signal}, restart: every acknowledged write is there`, async () => {
      const args = threads === 'default' ? [] : ['--threads', threads];
      const tag = `df${threads === 'default' ? 'd' : threads}${signal === 'SIGKILL' ? 'k' : 't'}`;
      const disk = await mountTmpfs(20);
      const servers: LeveldapServer[] = [];
      try {
        await prepare(disk);
        const server = await startLeveldap({ dir: disk.path, args });
        servers.push(server);
        const connection = await adminConnection(server);
        const writes = new WriteLog(connection, tag);
        assert.equal(await writes.next(), 0, 'a write before the disk is full');

        disk.fill();
        await writeWhileFull(writes);
        const read = await search(server, '(uid=user.1)', 'uid');
        assert.equal(read.size, 1, 'reads go on while the disk is full');
        await refusedOnEveryThread(server, tag);

        disk.free();
        const resumedAfter = await writeAfterFree(writes, 20, 15_000);
        const read2 = await search(server, '(uid=user.2)', 'uid');
        assert.equal(read2.size, 1, 'reads go on after the disk has room');
        connection.destroy();
        const lines = logLines(server);
        const suspended = lines.filter((line) => line.msg?.startsWith('a database write failed: writes are refused'));
        assert.equal(suspended.length, 1, 'one error line says writes are suspended');
        assert.equal(suspended[0]!.level, 50);
        assert.ok(lines.some((line) => line.msg?.startsWith('writes resumed')), 'a line says writes resumed');
        console.log(`# ${tag}: ${writes.acked} writes acknowledged, refused ${JSON.stringify(Object.fromEntries(writes.failures))}, `
          + `writes resumed ${resumedAfter.toFixed(0)} ms after the disk had room`);

        const restarted = await restart(server, signal, disk.path, args);
        servers.push(restarted);
        await checkAcked(restarted, writes, tag);
      } finally {
        for (const server of servers) await server.stop();
        await disk.unmount();
      }
    });
  }
});
