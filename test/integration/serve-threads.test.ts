/**
 * `leveldap serve --threads 2`: connections land on both threads of one process, which share
 * the port, the database, entry locks and the connection cap. The rest of the integration
 * suite can be run against threads too (LEVELDAP_TEST_THREADS=2, see test/helpers); here are
 * the parts particular to them: who serves, a write seen at once by the other thread's
 * clients, the cap over all threads, LDAPS, lockout keeping one thread, and a clean stop.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import tls from 'node:tls';
import { canConnect, findProgram, freePort } from '../../src/harness/slapd.js';
import { collect } from '../../src/harness/run.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { populateDatabase, startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, RawConnection, valuesOf, type Credentials } from '../helpers/ldap-client.js';
import { addRequest, bindRequest, exchange } from '../helpers/ldap-requests.js';
import { makeTestCertificate } from '../helpers/tls.js';
import { fixturePath, leveldapBin } from '../helpers/paths.js';
import { sharingUnavailable } from '../../src/server/net/listen-socket.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const userDn = (n: number) => `uid=user.${n},${PEOPLE}`;
/** Threads need the fd-dup addon; CI (LEVELDAP_REQUIRE_NATIVE=1) insists on it. */
function skipReason(): string | false {
  if (findProgram('ldapsearch') === undefined) return 'OpenLDAP clients missing: apt-get install ldap-utils';
  const unavailable = sharingUnavailable();
  return unavailable && process.env.LEVELDAP_REQUIRE_NATIVE !== '1' ? `threads unavailable: ${unavailable}` : false;
}
const skip = skipReason();

interface LogLine {
  readonly msg?: string;
  readonly thread?: number;
  readonly conn?: number;
  readonly op?: string;
  readonly threads?: number;
  readonly asked?: number;
  readonly kept?: number;
}

/** Every line the server logged, parsed: a line torn by two threads writing at once fails here. */
const logLines = (server: LeveldapServer): LogLine[] => server.logs().map((line) => JSON.parse(line) as LogLine);

/** Threads that answered a bind, by the access log. */
const bindingThreads = (server: LeveldapServer): Set<number | undefined> =>
  new Set(logLines(server).filter((line) => line.op === 'bind').map((line) => line.thread));

/** `count` connections, each bound as one of the first `users` users. */
async function bindMany(port: number, count: number, users = 20): Promise<RawConnection[]> {
  return Promise.all(Array.from({ length: count }, async (_, i) => {
    const connection = await RawConnection.open(port);
    const bound = await exchange(connection, 1, bindRequest(1, userDn(i % users), 'password'));
    assert.equal(bound.code, 0, bound.message);
    return connection;
  }));
}

/** cn=Monitor's counters of a shared table (cn=NAME,cn=Monitor) by their RDN, once the threads' samplers copied them (about once a second). */
async function tableCounts(server: LeveldapServer, admin: Credentials, name: string): Promise<Map<string | undefined, number>> {
  await new Promise((resolve) => setTimeout(resolve, 1200));
  const monitor = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', `cn=${name},cn=Monitor`, '(objectClass=*)', 'monitorCounter'], admin);
  assert.equal(monitor.code, 0, monitor.stderr);
  return new Map(parseLdifOutput(monitor.stdout).map((entry) => [entry.dn.split(',')[0], Number(valuesOf(entry, 'monitorCounter')[0])]));
}

describe('leveldap serve --threads 2 (--fill-password-table quiet)', { skip }, () => {
  let server: LeveldapServer;
  let admin: Credentials;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leveldap-threads-'));
    server = await startLeveldap({ users: 20, args: ['--threads', '2', '--max-connections', '40', '--reserved-connections', '0', '--fill-password-table', 'quiet'] });
    admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('says it serves with two threads, and both answer binds; every log line is whole JSON', async () => {
    assert.equal(logLines(server).find((line) => line.msg === 'leveldap is listening')?.threads, 2);
    const connections = await bindMany(server.port, 32);
    connections.forEach((connection) => connection.socket.destroy());
    await new Promise((resolve) => setTimeout(resolve, 200)); // the other thread's lines come through the first
    assert.deepEqual([...bindingThreads(server)].sort(), [0, 1]);
    const ids = logLines(server).filter((line) => line.op === 'bind').map((line) => `${line.conn}`);
    assert.equal(new Set(ids).size, ids.length, 'connection numbers are unique over both threads');
  });

  test('an entry added on one connection is found at once by clients on both threads', async () => {
    const readers = await bindMany(server.port, 16);
    readers.forEach((connection) => connection.socket.destroy());
    const writer = await RawConnection.open(server.port);
    try {
      assert.equal((await exchange(writer, 1, bindRequest(1, server.adminDn, server.adminPassword))).code, 0);
      const added = await exchange(writer, 2, addRequest(2, `uid=fresh,${PEOPLE}`, [
        ['objectClass', ['inetOrgPerson']], ['uid', ['fresh']], ['cn', ['Fresh']], ['sn', ['Fresh']],
      ]));
      assert.equal(added.code, 0, added.message);
      const searches = await Promise.all(Array.from({ length: 16 }, () => ldapTool('ldapsearch', server.url, ['-LLL', '-b', PEOPLE, '(uid=fresh)', 'cn'], admin)));
      for (const result of searches) {
        assert.equal(result.code, 0, result.stderr);
        assert.deepEqual(parseLdifOutput(result.stdout).map((entry) => entry.dn), [`uid=fresh,${PEOPLE}`]);
      }
    } finally {
      writer.socket.destroy();
    }
  });

  test('a password changed on one connection: at once, on both threads, only the new one binds (the shared password table)', async () => {
    const user = userDn(3);
    const binds = async (password: string) => Promise.all(Array.from({ length: 16 }, async () => {
      const connection = await RawConnection.open(server.port);
      try {
        return (await exchange(connection, 1, bindRequest(1, user, password))).code;
      } finally {
        connection.socket.destroy();
      }
    }));
    const filled = logLines(server).find((line) => line.msg === 'password table filled');
    assert.equal(filled?.kept, 22, 'filled behind the listeners while quiet: the base, ou=People and 20 users');
    assert.deepEqual(new Set(await binds('password')), new Set([0]), 'the table holds the first password');
    let old = 'password';
    for (const next of ['changed-1', 'changed-2', 'changed-3', 'password']) {
      const changed = await ldapTool('ldapmodify', server.url, [], admin, `dn: ${user}\nchangetype: modify\nreplace: userPassword\nuserPassword: ${next}\n`);
      assert.equal(changed.code, 0, changed.stderr);
      assert.deepEqual(new Set(await binds(old)), new Set([49]), `${old} after the change to ${next}`);
      assert.deepEqual(new Set(await binds(next)), new Set([0]), next);
      old = next;
    }
    const counts = await tableCounts(server, admin, 'Password Table');
    assert.ok(counts.get('cn=Hits')! >= 64, `hits ${counts.get('cn=Hits')}: the repeated binds of each password`);
    assert.ok(counts.get('cn=Misses')! >= 4, `misses ${counts.get('cn=Misses')}: one after each change`);
    assert.ok(counts.get('cn=Bytes')! > 0);
  });

  test('a mail value changed on one connection: at once, on both threads, searches find its new holder (the shared equality table)', async () => {
    const user = userDn(5);
    const holders = async (mail: string) => {
      const searches = await Promise.all(Array.from({ length: 8 }, () => ldapTool('ldapsearch', server.url, ['-LLL', '-b', PEOPLE, `(mail=${mail})`, '1.1'], admin)));
      return new Set(searches.map((result) => {
        assert.equal(result.code, 0, result.stderr);
        return parseLdifOutput(result.stdout).map((entry) => entry.dn).join(' ');
      }));
    };
    let old = 'user.5@example.com';
    for (const next of ['moved-1@example.com', 'moved-2@example.com', 'moved-3@example.com']) {
      assert.deepEqual(await holders(next), new Set(['']), `nobody holds ${next} yet (the empty answer is kept)`);
      const changed = await ldapTool('ldapmodify', server.url, [], admin, `dn: ${user}\nchangetype: modify\nreplace: mail\nmail: ${next}\n`);
      assert.equal(changed.code, 0, changed.stderr);
      assert.deepEqual(await holders(next), new Set([user]), `${next} after the change`);
      assert.deepEqual(await holders(old), new Set(['']), `${old} after the change to ${next}`);
      old = next;
    }
    const counts = await tableCounts(server, admin, 'Equality Table');
    assert.ok(counts.get('cn=Hits')! > 0, `hits ${counts.get('cn=Hits')}: answers kept by one thread given to the other`);
    assert.ok(counts.get('cn=Misses')! >= 6, `misses ${counts.get('cn=Misses')}: at least one after each change`);
    assert.ok(counts.get('cn=Bytes')! > 0);
  });

  test('--max-connections holds over both threads: the 41st connection is closed, a freed place is taken again', async () => {
    const held = await bindMany(server.port, 40);
    try {
      const refused = await RawConnection.open(server.port);
      assert.ok(await refused.until(() => refused.closed, 5000), 'the connection over the cap is closed');
      held.pop()!.socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const [again] = await bindMany(server.port, 1);
      held.push(again!);
    } finally {
      held.forEach((connection) => connection.socket.destroy());
    }
  });

  test('a serving thread that crashes stops the server: fatal log line, exit 1, within seconds', async () => {
    const trigger = join(dir, 'crash-now');
    const crashing = await startLeveldap({
      users: 5, args: ['--threads', '2'],
      env: { NODE_OPTIONS: `--import ${pathToFileURL(fixturePath('preload', 'crash-thread.mjs')).href}`, LEVELDAP_TEST_CRASH_TRIGGER: trigger },
    });
    try {
      (await bindMany(crashing.port, 8, 5)).forEach((connection) => connection.socket.destroy());
      const started = Date.now();
      const exited = once(crashing.process, 'exit');
      await writeFile(trigger, '');
      const [code] = await exited as [number | null];
      assert.equal(code, 1, crashing.stderr());
      assert.ok(Date.now() - started < 8000, `exited after ${Date.now() - started} ms`);
      const fatal = logLines(crashing).find((line) => line.msg === 'a serving thread failed');
      assert.equal(fatal?.thread, 1);
    } finally {
      await crashing.stop();
    }
  });

  test('SIGTERM stops both threads: exit 0, one "stopped" line', async () => {
    const stopping = await startLeveldap({ users: 5, args: ['--threads', '2'] });
    try {
      (await bindMany(stopping.port, 8, 5)).forEach((connection) => connection.socket.destroy());
      const exit = await stopping.terminate();
      assert.equal(exit.code, 0, stopping.stderr());
      assert.equal(logLines(stopping).filter((line) => line.msg === 'stopped').length, 1);
    } finally {
      await stopping.stop();
    }
  });
});

describe('leveldap serve --threads 2 --entry-cache-mb 0: the shared record table', { skip }, () => {
  let server: LeveldapServer;
  let admin: Credentials;

  before(async () => {
    server = await startLeveldap({ users: 20, args: ['--threads', '2', '--entry-cache-mb', '0'] });
    admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
  });
  after(async () => { await server?.stop(); });

  test('a description changed on one connection: at once, on both threads, searches read the new record', async () => {
    const user = userDn(7);
    const descriptions = async () => {
      const searches = await Promise.all(Array.from({ length: 8 }, () => ldapTool('ldapsearch', server.url, ['-LLL', '-b', PEOPLE, '(uid=user.7)', 'description'], admin)));
      return new Set(searches.map((result) => {
        assert.equal(result.code, 0, result.stderr);
        return parseLdifOutput(result.stdout).flatMap((entry) => valuesOf(entry, 'description')).join(' ');
      }));
    };
    const [before, ...others] = await descriptions();
    assert.ok(before !== undefined && before !== '' && others.length === 0, `the one description before: ${before} (the record is kept)`);
    for (const next of ['first', 'second', 'third']) {
      const changed = await ldapTool('ldapmodify', server.url, [], admin, `dn: ${user}\nchangetype: modify\nreplace: description\ndescription: ${next}\n`);
      assert.equal(changed.code, 0, changed.stderr);
      assert.deepEqual(await descriptions(), new Set([next]), `after the change to ${next}`);
    }
    const counts = await tableCounts(server, admin, 'Record Table');
    assert.ok(counts.get('cn=Hits')! > 0, `hits ${counts.get('cn=Hits')}: records kept by one thread read by the other`);
    assert.ok(counts.get('cn=Misses')! >= 4, `misses ${counts.get('cn=Misses')}: at least one after each change`);
    assert.ok(counts.get('cn=Bytes')! > 0);
  });
});

describe('leveldap serve --threads 2: LDAPS, and lockout', { skip }, () => {
  let dir: string;

  before(async () => { dir = await mkdtemp(join(tmpdir(), 'leveldap-threads-')); });
  after(async () => { await rm(dir, { recursive: true, force: true }); });

  test('LDAPS connections are served by both threads', async () => {
    const certificate = await makeTestCertificate(dir);
    const server = await startLeveldap({ users: 20, args: ['--threads', '2', '--tls-cert', certificate.cert, '--tls-key', certificate.key, '--ldaps-port', '0'] });
    try {
      const connections = await Promise.all(Array.from({ length: 24 }, async (_, i) => {
        const socket = tls.connect({ host: '127.0.0.1', port: server.ldapsPort!, ca: readFileSync(certificate.ca), servername: 'localhost' });
        await new Promise<void>((resolve, reject) => { socket.once('secureConnect', () => resolve()); socket.once('error', reject); });
        const connection = RawConnection.over(socket);
        assert.equal((await exchange(connection, 1, bindRequest(1, userDn(i % 20), 'password'))).code, 0);
        return connection;
      }));
      connections.forEach((connection) => connection.socket.destroy());
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual([...bindingThreads(server)].sort(), [0, 1]);
    } finally {
      await server.stop();
    }
  });

  test('with lockout on, the server keeps one thread and says why', async () => {
    const server = await startLeveldap({ users: 5, args: ['--threads', '2', '--max-failures', '3'] });
    try {
      const warning = logLines(server).find((line) => line.msg?.startsWith('serving with one thread'));
      assert.match(warning?.msg ?? '', /lockout/);
      assert.equal(warning?.asked, 2);
      assert.equal(logLines(server).find((line) => line.msg === 'leveldap is listening')?.threads, 1);
    } finally {
      await server.stop();
    }
  });
});

/** `serve --threads 2` (or `threads`) spawned on a free port (or `port`) over a new database of `users` users (its directory added to `dirs`). */
async function spawnTwoThreads(dirs: string[], users: number, args: readonly string[] = [], port?: number, threads = '2'): Promise<{ child: ChildProcess; port: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-threads-start-'));
  dirs.push(dir);
  await populateDatabase(join(dir, 'db'), users);
  await writeFile(join(dir, 'admin-password'), 'start-admin', { mode: 0o600 });
  port ??= await freePort();
  const child = spawn(process.execPath, [
    leveldapBin, 'serve', '--data', join(dir, 'db'), '--port', String(port), '--threads', threads, '--admin-password-file', join(dir, 'admin-password'), ...args,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, port };
}

describe('leveldap serve --threads 2: clients that connect while the threads start are spread over them', { skip }, () => {
  const dirs: string[] = [];
  after(async () => { await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))); });

  test('32 connections made as soon as the port accepts, before the threads are all listening, are served by both', async () => {
    const { child, port } = await spawnTwoThreads(dirs, 50);
    const output = collect(child.stdout);
    child.stderr?.resume();
    try {
      // The port accepts at the kernel's level as soon as it is bound, before any thread listens.
      while (!(await canConnect(port))) await new Promise((resolve) => setTimeout(resolve, 20));
      const connections = await Promise.all(Array.from({ length: 32 }, () => RawConnection.open(port)));
      await Promise.all(connections.map(async (connection, i) => assert.equal((await exchange(connection, 1, bindRequest(1, userDn(i % 50), 'password'))).code, 0)));
      connections.forEach((connection) => connection.socket.destroy());
      await new Promise((resolve) => setTimeout(resolve, 300));
      const binds = output().split('\n').filter((line) => line.includes('"op":"bind"')).map((line) => (JSON.parse(line) as LogLine).thread);
      const perThread = [0, 1].map((thread) => binds.filter((t) => t === thread).length);
      // With one listening socket shared by the threads, the thread listening first took them all.
      assert.ok(perThread.every((count) => count >= 6), `binds per thread: ${perThread.join(', ')}`);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('leveldap serve --threads 2: the port opens only for threads that serve', { skip }, () => {
  const dirs: string[] = [];
  after(async () => { await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))); });

  test('serving threads that fail to start: exit 1 naming the cause, and no connection was ever accepted', async () => {
    const { child, port } = await spawnTwoThreads(dirs, 5, ['--scheme-plugin', fixturePath('plugins', 'refused-by-threads.mjs')]);
    const output = collect(child.stdout);
    const errors = collect(child.stderr);
    const exited = once(child, 'exit');
    let running = true;
    void exited.then(() => { running = false; });
    let accepted = 0;
    let tries = 0;
    while (running) {
      tries += 1;
      if (await canConnect(port)) accepted += 1;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const [code] = await exited as [number | null];
    assert.equal(code, 1, errors());
    assert.match(output() + errors(), /refuses to load in a serving thread/);
    assert.ok(tries > 5, `the port was tried ${tries} times while the server started`);
    assert.equal(accepted, 0, `${accepted} of ${tries} connections were accepted by a server that never served`);
  });
});

describe('leveldap serve on a port already in use', { skip }, () => {
  const dirs: string[] = [];
  after(async () => { await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))); });

  for (const threads of ['1', '2']) {
    test(`--threads ${threads}: exit 1 with one line naming the address, no stack`, async () => {
      const holder = net.createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      try {
        const port = (holder.address() as net.AddressInfo).port;
        const { child } = await spawnTwoThreads(dirs, 5, [], port, threads);
        const errors = collect(child.stderr);
        child.stdout?.resume();
        const [code] = await once(child, 'exit') as [number | null];
        assert.equal(code, 1, errors());
        assert.match(errors(), new RegExp(`^leveldap: cannot listen on 127\\.0\\.0\\.1:${port}: address already in use\n$`));
      } finally {
        holder.close();
      }
    });

    test(`--threads ${threads}: an address no interface has (192.0.2.1, TEST-NET-1): exit 1, one line`, async () => {
      const { child, port } = await spawnTwoThreads(dirs, 5, ['--host', '192.0.2.1'], undefined, threads);
      const errors = collect(child.stderr);
      child.stdout?.resume();
      const [code] = await once(child, 'exit') as [number | null];
      assert.equal(code, 1, errors());
      assert.equal(errors(), `leveldap: cannot listen on 192.0.2.1:${port}: no interface of this machine has that address\n`);
    });

    test(`--threads ${threads}: a --metrics-port in use: exit 1 with one line naming it, no stack (review 2026-12-08)`, async () => {
      const holder = net.createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      try {
        const taken = (holder.address() as net.AddressInfo).port;
        const { child } = await spawnTwoThreads(dirs, 5, ['--metrics-port', String(taken)], undefined, threads);
        const errors = collect(child.stderr);
        child.stdout?.resume();
        const [code] = await once(child, 'exit') as [number | null];
        assert.equal(code, 1, errors());
        assert.equal(errors(), `leveldap: cannot listen on 127.0.0.1:${taken}: address already in use\n`);
      } finally {
        holder.close();
      }
    });

    test(`--threads ${threads}: a host name that does not resolve: exit 1, one line`, async () => {
      const { child, port } = await spawnTwoThreads(dirs, 5, ['--host', 'no-such-host.invalid'], undefined, threads);
      const errors = collect(child.stderr);
      child.stdout?.resume();
      const [code] = await once(child, 'exit') as [number | null];
      assert.equal(code, 1, errors());
      assert.equal(errors(), `leveldap: cannot listen on no-such-host.invalid:${port}: no such host (the name does not resolve)\n`);
    });
  }
});

describe('leveldap serve --threads 2 (--fill-password-table before, the default)', { skip }, () => {
  let server: LeveldapServer;
  before(async () => {
    server = await startLeveldap({ users: 20, args: ['--threads', '2'] });
  });
  after(async () => { await server?.stop(); });

  test('every account is in the password table before the server listens: the first bind of each finds it there', async () => {
    const lines = logLines(server);
    const filled = lines.findIndex((line) => line.msg === 'password table filled before listening');
    const listening = lines.findIndex((line) => line.msg === 'leveldap is listening');
    assert.ok(filled !== -1 && filled < listening, `filled at line ${filled}, listening at line ${listening}`);
    assert.equal(lines[filled]!.kept, 22, 'the base, ou=People and 20 users');
    assert.equal(lines.filter((line) => line.msg === 'password table filled').length, 0, 'no walk behind the listeners');
    const connections = await bindMany(server.port, 20);
    connections.forEach((connection) => connection.socket.destroy());
    await new Promise((resolve) => setTimeout(resolve, 1200)); // the threads' samplers copy their counts about once a second
    const admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
    const monitor = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', 'cn=Password Table,cn=Monitor', '(objectClass=*)', 'monitorCounter'], admin);
    assert.equal(monitor.code, 0, monitor.stderr);
    const counts = new Map(parseLdifOutput(monitor.stdout).map((entry) => [entry.dn.split(',')[0], Number(valuesOf(entry, 'monitorCounter')[0])]));
    assert.equal(counts.get('cn=Hits'), 20, 'each user\'s first bind answered from the table');
    assert.equal(counts.get('cn=Misses'), 0);
  });
});
