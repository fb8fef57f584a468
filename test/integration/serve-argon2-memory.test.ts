/**
 * A memory-hard hash must not be a memory bomb: 32 connections binding at once as Argon2id
 * users of 64 MiB (RFC 9106's second recommendation, m=65536) would take 2 GiB if every
 * verification ran at once. Through real sockets:
 *
 * - verifications wait for the memory budget (by default one per core times the largest cost in
 *   use): the server's resident memory stays within that budget plus its footprint before the load;
 * - a root DSE search on another connection still answers at once all along;
 * - a planted value asking for 4 GiB is refused before any hashing (the bind answers 49, after
 *   the failed-bind timing floor, and the log names the limit).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { createRegistry } from '../../src/password/index.js';
import { serverMemory, startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { RawConnection } from '../helpers/ldap-client.js';
import { answer, bindRequest, searchRequest } from '../helpers/ldap-requests.js';
import { skipUnavailable } from '../helpers/native-schemes.js';
import { eventually } from '../helpers/eventually.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const ARGON2_USERS = 8;
const CONNECTIONS = 32;
const LOAD_MS = 5000;
const MIB = 2 ** 20;
/** 64 MiB, one pass, one lane: the memory of RFC 9106's second recommendation at a third of its time. */
const PARAMS = { memory: 65_536, time: 1, parallelism: 1 };
const PLANTED = '{ARGON2}$argon2id$v=19$m=4194304,t=1,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';

const dnOf = (name: string): string => `uid=${name},${PEOPLE}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function argon2Ldif(): Promise<string> {
  const registry = createRegistry();
  const records = [];
  for (let n = 0; n < ARGON2_USERS; n++) {
    const stored = await registry.encode('ARGON2', Buffer.from(`argon-${n}`), PARAMS);
    records.push(`dn: ${dnOf(`argon.${n}`)}\nobjectClass: inetOrgPerson\nuid: argon.${n}\ncn: argon ${n}\nsn: argon\nuserPassword: ${stored}\n`);
  }
  records.push(`dn: ${dnOf('planted')}\nobjectClass: inetOrgPerson\nuid: planted\ncn: planted\nsn: planted\nuserPassword: ${PLANTED}\n`);
  return records.join('\n');
}

/** Binds as one Argon2 user after another on one connection until `until`; the result codes seen. */
async function bindLoop(port: number, first: number, until: number): Promise<number[]> {
  const connection = await RawConnection.open(port);
  const codes: number[] = [];
  try {
    for (let id = 1, n = first; performance.now() < until; id++, n++) {
      connection.write(bindRequest(id, dnOf(`argon.${n % ARGON2_USERS}`), `argon-${n % ARGON2_USERS}`));
      codes.push((await answer(connection, id, 60_000))?.code ?? -1);
    }
    return codes;
  } finally {
    connection.destroy();
  }
}

/** Milliseconds each root DSE search took, one every 100 ms until `until`. */
async function rootDseTimes(port: number, until: number): Promise<number[]> {
  const connection = await RawConnection.open(port);
  const times: number[] = [];
  try {
    for (let id = 1; performance.now() < until; id++) {
      const started = performance.now();
      connection.write(searchRequest(id, '', { scope: 'base' }));
      assert.equal((await answer(connection, id, 10_000))?.code, 0);
      times.push(performance.now() - started);
      await sleep(100);
    }
    return times;
  } finally {
    connection.destroy();
  }
}

describe('leveldap serve: 32 connections of Argon2id (64 MiB) binds', { skip: skipUnavailable('ARGON2') }, () => {
  let server: LeveldapServer;
  before(async () => { server = await startLeveldap({ users: 10, ldif: await argon2Ldif() }); });
  after(async () => { await server.stop(); });

  test('memory stays within the budget plus the footprint before the load; the root DSE is not held by the hashing (median under 50 ms)', async () => {
    const budget = availableParallelism() * 64 * MIB;
    assert.deepEqual(await bindLoop(server.port, 0, 0), []);
    await bindLoop(server.port, 0, performance.now() + 1); // one bind: the largest cost in use is now 64 MiB
    const footprint = serverMemory(server.process.pid!);
    let most = footprint;
    const sampler = setInterval(() => { most = Math.max(most, serverMemory(server.process.pid!)); }, 20);
    const until = performance.now() + LOAD_MS;
    const [codes, times] = await Promise.all([
      Promise.all(Array.from({ length: CONNECTIONS }, (_unused, n) => bindLoop(server.port, n, until))).then((all) => all.flat()),
      rootDseTimes(server.port, until),
    ]);
    clearInterval(sampler);
    const grew = (most - footprint) / MIB;
    const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
    process.stdout.write(`# ${codes.length} Argon2id binds in ${LOAD_MS} ms; RSS ${Math.round(footprint / MIB)} MiB before, at most +${grew.toFixed(0)} MiB `
      + `(budget ${budget / MIB} MiB); root DSE ms: median ${median.toFixed(1)}, most ${Math.max(...times).toFixed(1)}\n`);
    assert.ok(codes.length >= CONNECTIONS && codes.every((code) => code === 0), `every bind succeeds: ${JSON.stringify(codes.filter((code) => code !== 0))}`);
    assert.ok(grew * MIB <= budget + 32 * MIB, `RSS grew by ${grew.toFixed(0)} MiB, more than the ${budget / MIB} MiB budget (+32 MiB of other growth)`);
    // A hash on the event loop would hold each search for at least one verification (~145 ms of a
    // core at 64 MiB) and most for several; scheduling on this shared 2-core machine delays some
    // searches by tens of milliseconds, never the median past 50 ms nor one search past a second.
    assert.ok(median < 50 && Math.max(...times) < 1000, `root DSE searches took ${times.map((time) => time.toFixed(0)).join(', ')} ms`);
  });

  test('a planted value asking for 4 GiB is refused before any hashing: invalid credentials, the reason logged', async () => {
    const connection = await RawConnection.open(server.port);
    try {
      connection.write(bindRequest(1, dnOf('planted'), 'password'));
      assert.equal((await answer(connection, 1))?.code, 49);
    } finally {
      connection.destroy();
    }
    assert.ok(await eventually(() => server.logs().some((line) => line.includes('--max-hash-memory'))), 'the refusal names the limit');
  });
});
