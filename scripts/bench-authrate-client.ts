/**
 * Is authrate the bottleneck? Against slapd with the same users, authrate (`-c 32 -f`) and the
 * minimal raw-socket bind client (src/bench/bind-load.ts, which parses nothing but the result
 * code) run alternately in one run; authrate's throughput should be within 10% of the raw client's.
 * Run: npm run build && node dist/scripts/bench-authrate-client.js     (USERS, SECONDS, ROUNDS)
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runBindLoad } from '../src/bench/bind-load.js';
import { createSlapd } from '../test/helpers/slapd.js';
import { leveldapBin, repoRoot } from '../test/helpers/paths.js';
import { run } from '../test/helpers/run.js';

const USERS = Number(process.env.USERS ?? 10_000);
const SECONDS = Number(process.env.SECONDS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const TEMPLATE = 'uid=user.%d,ou=People,dc=example,dc=com';

function makeLdif(): string {
  const result = spawnSync(process.execPath, [leveldapBin, 'make-ldif', '--users', String(USERS), '--scheme', 'SSHA512', '--seed', 'bench'],
    { maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(result.stderr.toString());
  return result.stdout.toString('utf8');
}

/**
 * Asynchronous on purpose: while this process was blocked in spawnSync, the slapd it had spawned
 * (its output piped to this process) stalled, and authrate measured 0-300 binds/s.
 */
async function runAuthrate(port: number): Promise<number> {
  const args = [join(repoRoot, 'bin', 'authrate.js'), '-h', '127.0.0.1', '-p', String(port), '-D', TEMPLATE, '-w', 'password',
    '-c', '32', '-f', '-g', `rand(0,${USERS})`, '-B', '2', '-d', String(SECONDS), '--json'];
  const result = await run(process.execPath, args);
  if (result.code !== 0) throw new Error(`authrate failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { throughput: number }).throughput;
}

async function runRaw(port: number): Promise<number> {
  const result = await runBindLoad({
    host: '127.0.0.1', port, users: USERS, password: Buffer.from('password'), dn: (n) => TEMPLATE.replace('%d', String(n)),
  }, { connections: 32, seconds: SECONDS, warmUpSeconds: 2 });
  return result.throughput;
}

const slapd = await createSlapd();
try {
  await slapd.slapadd(makeLdif());
  await slapd.start();
  let best = { raw: 0, authrate: 0 };
  for (let round = 1; round <= ROUNDS; round += 1) {
    process.stderr.write(`round ${round}/${ROUNDS}...\n`);
    best = { raw: Math.max(best.raw, await runRaw(slapd.port)), authrate: Math.max(best.authrate, await runAuthrate(slapd.port)) };
  }
  const ratio = best.authrate / best.raw;
  process.stdout.write(`\nslapd, ${USERS} users ({SSHA512}), 32 connections, ${SECONDS} s runs, best of ${ROUNDS}\n\n`
    + '| client | binds/s |\n|---|---:|\n'
    + `| raw-socket client (src/bench/bind-load.ts) | ${Math.round(best.raw)} |\n`
    + `| authrate -c 32 -f | ${Math.round(best.authrate)} |\n`
    + `| **authrate / raw** | **${ratio.toFixed(2)}** (goal: at least 0.90) |\n`);
} finally {
  await slapd.stop();
}
