/**
 * Do more processes help leveldap's binds? (issue 8) A prototype benchmark, not a product: it
 * runs, side by side in one run, alternating, on the same LDIF with the same client
 * (src/bench/bind-load.ts, 32 connections, one bind outstanding on each, random users):
 *
 *   serve          the real `leveldap serve` (baseline), one process
 *   mini-1         a minimal bind responder in one process that owns its LevelDB (the control:
 *                  the same per-bind code as the split variants, without IPC)
 *   ipc-N          primary/worker split: N cluster workers share the listening socket and do
 *                  framing, decoding, verification and responses; the primary owns LevelDB and
 *                  answers "record for key" over node's cluster IPC channel (advanced serialization)
 *   unix-N         the same split over one Unix socket per worker, length-prefixed binary frames,
 *                  requests of one event-loop turn batched into one write (a many-level-style protocol)
 *   many-level-N   the same split through the real `many-level` guest/host (MANY_LEVEL_DIR: a
 *                  node_modules directory holding many-level, e.g. from `npm i many-level` elsewhere)
 *   mt-N           N event-loop threads in ONE process, each running the minimal responder on the
 *                  same LevelDB (classic-level `multithreading`) and the same listening socket
 *   threads-T      the real server, with every password verification posted to T worker threads
 *                  (the main thread keeps the sockets and LevelDB)
 *   replica-N      the real server in N cluster workers, each on its OWN copy of the database
 *                  (read-mostly replicas: the upper bound of what more processes can give here)
 *   mini-replica-N the minimal responder in N cluster workers, each on its own copy
 *
 * The minimal responder verifies real passwords from the real store (real FrameReader,
 * decodeRequest, DN parsing, dnKey, decodeEntry, the scheme registry, encodeBindResponse), and
 * answers real BindResponses; it handles binds only (anything else closes the connection) and
 * leaves out the failure floor, the admin DN and the access log.
 *
 * Reports binds/s, p99.9, server CPU per bind (summed over every process of the server, counted
 * over the measured window only), the event-loop (main-thread) CPU per bind of the root process
 * (the primary: what one thread must do for every bind) and of the workers, cores used by server,
 * client and anything else on the machine (other people's work: read it before trusting a row),
 * resident memory (summed). Results: stdout, /tmp/leveldap-bench-processes.{md,json}.
 * `micro` (run once per scheme before the load runs) times each step of a bind in one process
 * and the round-trip cost of each IPC mechanism.
 *
 * Run: npm run build && node dist/scripts/bench-processes.js
 *   (`npm run build` by anyone else wipes dist/ mid-run; to freeze the code under test, compile
 *   into a private tree: tsc -p tsconfig.json --outDir /tmp/b/dist, copy bin/ and package.json
 *   there, symlink node_modules, and run node /tmp/b/dist/scripts/bench-processes.js)
 *   env: USERS (10000) SECONDS (5) CONNECTIONS (32) ROUNDS (2) SCHEMES (SSHA512,PBKDF2-SHA256)
 *        VARIANTS (comma list of the names above; default all but many-level unless MANY_LEVEL_DIR)
 *        MICRO (1: run the micro benchmarks; 0: skip)
 *        QUIET (seconds to wait, before each run, for a machine other people's work leaves idle; 0)
 */
import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import net from 'node:net';
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { availableParallelism, tmpdir } from 'node:os';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Level } from 'level';
import { runBindLoad, type LoadResult } from '../src/bench/bind-load.js';
import { encodeSimpleBind } from '../src/bench/bind-wire.js';
import { cpuSeconds, residentBytes } from '../src/bench/process-stats.js';

/** CPU seconds of one thread (the main thread of a process when tid === pid: its event loop). */
function threadCpuSeconds(pid: number, tid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
import { canConnect, freePort } from '../src/bench/slapd.js';
import { createRegistry, DEFAULT_SCHEME, type SchemeRegistry, type VerifyResult } from '../src/password/index.js';
import { decodeRequest, encodeBindResponse, FrameReader } from '../src/protocol/index.js';
import { DEFAULT_LIMITS, startServer } from '../src/server/index.js';
import { parseDn } from '../src/store/dn.js';
import { dnKey, entryKey } from '../src/store/keys.js';
import { decodeEntry } from '../src/store/codec.js';
import { values } from '../src/store/entry.js';

const SCRIPT = fileURLToPath(import.meta.url);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const LEVELDAP_BIN = join(REPO, 'bin', 'leveldap.js');
const SUFFIX = 'dc=example,dc=com';
const ADMIN_PASSWORD = 'bench';
const THREADPOOL = String(Math.max(4, availableParallelism()));
const userDn = (n: number): string => `uid=user.${n},ou=People,${SUFFIX}`;

type Db = Level<string, Buffer>;
type Lookup = (key: string) => Buffer | undefined | Promise<Buffer | undefined>;

/** What a server process is told: one JSON argument. */
interface ServerSpec {
  readonly kind: 'mini' | 'split' | 'replica' | 'threads' | 'mt';
  readonly port: number;
  /** One directory, or one per worker (replicas). */
  readonly dataDirs: readonly string[];
  /** Cluster workers (0: the responder runs in this process), or worker threads for `threads`. */
  readonly workers: number;
  /** For `split`: how workers reach the primary's LevelDB. */
  readonly ipc?: 'cluster' | 'unix' | 'many-level';
  readonly socketPath?: string;
  /** `replica`: the real server (true) or the minimal responder (false). */
  readonly real?: boolean;
}

const asBuffer = (view: Uint8Array): Buffer => Buffer.from(view.buffer, view.byteOffset, view.byteLength);

/** `multithreading`: classic-level lets worker threads of one process open the same database. */
async function openDb(dir: string, multithreading = false): Promise<Db> {
  // The options DirectoryStore uses (src/store/store.ts openLevel).
  const db = new Level<string, Buffer>(dir, {
    keyEncoding: 'utf8', valueEncoding: 'buffer', createIfMissing: false, writeBufferSize: 32 << 20, cacheSize: 64 << 20, maxFileSize: 8 << 20,
  });
  await db.open({ multithreading } as object);
  return db;
}

// ---------------------------------------------------------------------------------------------
// The minimal bind responder (runs in a cluster worker, or alone in one process)
// ---------------------------------------------------------------------------------------------

/** Bind DN -> LevelDB key, cached like handlers/bind.ts caches parsed bind DNs. */
const keys = new Map<string, string>();
function keyOf(name: string): string {
  let key = keys.get(name);
  if (key === undefined) {
    key = entryKey(dnKey(parseDn(name)));
    if (keys.size >= 50_000) keys.clear();
    keys.set(name, key);
  }
  return key;
}

async function bindReply(frame: Buffer, lookup: Lookup, registry: SchemeRegistry, dummyHash: string): Promise<Buffer | 'unbind' | 'other'> {
  const request = decodeRequest(frame);
  if (request.kind === 'unbind') return 'unbind';
  if (request.kind !== 'bind') return 'other';
  const id = request.messageId;
  if (request.version !== 3 || request.authentication.method !== 'simple') return encodeBindResponse(id, { code: 2, message: 'prototype: simple v3 binds only' });
  const password = request.authentication.password;
  if (request.name === '') return encodeBindResponse(id, password.byteLength === 0 ? { code: 0 } : { code: 49, message: '' });
  if (password.byteLength === 0) return encodeBindResponse(id, { code: 53, message: 'unauthenticated bind (DN with no password) disallowed' });
  let key: string;
  try {
    key = keyOf(request.name);
  } catch {
    return encodeBindResponse(id, { code: 34, message: 'invalid DN' });
  }
  const record = await lookup(key);
  const stored = record ? values(decodeEntry(record), 'userPassword').map((value) => value.toString('utf8')) : [];
  let match = false;
  if (stored.length === 0) await registry.verify(password, dummyHash);
  for (const value of stored) {
    if ((await registry.verify(password, value)).status === 'match') { match = true; break; }
  }
  return encodeBindResponse(id, match ? { code: 0 } : { code: 49, message: '' });
}

/** Listens on a port, or on a listening socket's file descriptor that another thread opened. */
async function startResponder(listenOn: number | { fd: number }, lookup: Lookup): Promise<net.Server> {
  const registry = createRegistry();
  const dummyHash = await registry.encode('SSHA512', randomBytes(16));
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    const frames = new FrameReader({ maxBytes: DEFAULT_LIMITS.maxMessageBytesAnonymous });
    let tail: Promise<void> = Promise.resolve();
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      try {
        for (const frame of frames.push(chunk)) {
          tail = tail.then(async () => {
            const reply = await bindReply(frame, lookup, registry, dummyHash);
            if (reply === 'unbind' || reply === 'other') socket.end();
            else if (!socket.destroyed) socket.write(reply);
          }).catch(() => { socket.destroy(); });
        }
      } catch {
        socket.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => {
    if (typeof listenOn === 'number') server.listen(listenOn, '127.0.0.1', resolve);
    else server.listen(listenOn, resolve);
  });
  return server;
}

// --- lookups a worker uses to reach the primary's LevelDB ---------------------------------------

function clusterLookup(): Lookup {
  const pending = new Map<number, (value: Buffer | undefined) => void>();
  let next = 0;
  process.on('message', (message: { i: number; v: Uint8Array | null }) => {
    const resolve = pending.get(message.i);
    pending.delete(message.i);
    resolve?.(message.v ? asBuffer(message.v) : undefined);
  });
  return (key) => new Promise((resolve) => {
    const i = next++;
    pending.set(i, resolve);
    process.send!({ i, k: key });
  });
}

/**
 * Frames over the Unix socket: u32 length (of what follows) | u32 id | payload. A request's
 * payload is the key (UTF-8); a response's is u8 found | the record.
 */
function frameParser(onFrame: (id: number, payload: Buffer) => void): (chunk: Buffer) => void {
  let held = Buffer.alloc(0);
  return (chunk) => {
    let buffer = held.length > 0 ? Buffer.concat([held, chunk]) : chunk;
    let offset = 0;
    while (buffer.length - offset >= 4) {
      const length = buffer.readUInt32BE(offset);
      if (buffer.length - offset - 4 < length) break;
      onFrame(buffer.readUInt32BE(offset + 4), buffer.subarray(offset + 8, offset + 4 + length));
      offset += 4 + length;
    }
    held = offset === buffer.length ? Buffer.alloc(0) : Buffer.from(buffer.subarray(offset));
    buffer = held;
  };
}

function frame(id: number, parts: readonly Buffer[]): Buffer {
  const length = 4 + parts.reduce((sum, part) => sum + part.length, 0);
  const head = Buffer.allocUnsafe(8);
  head.writeUInt32BE(length, 0);
  head.writeUInt32BE(id, 4);
  return Buffer.concat([head, ...parts]);
}

const FOUND = Buffer.from([1]);
const MISSING = Buffer.from([0]);

/** The primary's side: answers every request of a chunk with one write. */
function serveUnix(path: string, db: Db): Promise<net.Server> {
  const server = net.createServer((socket) => {
    let out: Buffer[] = [];
    const parse = frameParser((id, payload) => {
      const record = db.getSync(payload.toString('utf8'));
      out.push(frame(id, record ? [FOUND, record] : [MISSING]));
    });
    socket.on('data', (chunk: Buffer) => {
      parse(chunk);
      if (out.length > 0) {
        socket.write(out.length === 1 ? out[0]! : Buffer.concat(out));
        out = [];
      }
    });
    socket.on('error', () => socket.destroy());
  });
  return new Promise((resolve) => server.listen(path, () => resolve(server)));
}

/** The worker's side: the requests of one event-loop turn go out in one write. */
async function unixLookup(path: string): Promise<Lookup> {
  const socket = net.connect(path);
  await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  const pending = new Map<number, (value: Buffer | undefined) => void>();
  let next = 0;
  let batch: Buffer[] = [];
  socket.on('data', frameParser((id, payload) => {
    const resolve = pending.get(id);
    pending.delete(id);
    resolve?.(payload[0] === 1 ? payload.subarray(1) : undefined);
  }));
  const flush = (): void => {
    socket.write(batch.length === 1 ? batch[0]! : Buffer.concat(batch));
    batch = [];
  };
  return (key) => new Promise((resolve) => {
    const id = (next = (next + 1) >>> 0);
    pending.set(id, resolve);
    if (batch.length === 0) setImmediate(flush);
    batch.push(frame(id, [Buffer.from(key, 'utf8')]));
  });
}

interface ManyLevelModule {
  ManyLevelHost: new (db: unknown) => { createRpcStream(): NodeJS.ReadWriteStream };
  ManyLevelGuest: new (options: object) => { createRpcStream(): NodeJS.ReadWriteStream; get(key: string): Promise<Buffer | undefined> };
}

function manyLevel(): ManyLevelModule {
  const dir = process.env.MANY_LEVEL_DIR;
  if (!dir) throw new Error('MANY_LEVEL_DIR is not set');
  return createRequire(join(dir, 'noop.js'))('many-level') as ManyLevelModule;
}

/**
 * many-level 2.0.0's host calls the callback API of abstract-level 1 (db.get(key, options,
 * callback)); level 10 (abstract-level 3) has promises only, so the host is given this adapter,
 * which reads with getSync like the other variants.
 */
function callbackAdapter(db: Db): object {
  return {
    supports: { events: {} },
    open: (_options: unknown, callback: (error: Error | null) => void) => callback(null),
    get: (key: Buffer, _options: unknown, callback: (error: Error | null, value?: Buffer) => void) => {
      const value = db.getSync(key.toString('utf8'));
      if (value === undefined) callback(Object.assign(new Error('not found'), { code: 'LEVEL_NOT_FOUND' }));
      else callback(null, value);
    },
  };
}

function serveManyLevel(path: string, db: Db): Promise<net.Server> {
  const host = new (manyLevel().ManyLevelHost)(callbackAdapter(db));
  const server = net.createServer((socket) => {
    const rpc = host.createRpcStream();
    socket.pipe(rpc).pipe(socket);
    socket.on('error', () => socket.destroy());
  });
  return new Promise((resolve) => server.listen(path, () => resolve(server)));
}

async function manyLevelLookup(path: string): Promise<Lookup> {
  const guest = new (manyLevel().ManyLevelGuest)({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
  const socket = net.connect(path);
  await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  socket.pipe(guest.createRpcStream()).pipe(socket);
  return async (key) => {
    try {
      return await guest.get(key);
    } catch (error) {
      if ((error as { code?: string }).code === 'LEVEL_NOT_FOUND') return undefined;
      throw error;
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Server roles
// ---------------------------------------------------------------------------------------------

async function startRealServer(dataDir: string, port: number, registry: SchemeRegistry): Promise<void> {
  await startServer({
    dataDir, registry, defaultScheme: DEFAULT_SCHEME, allowClearDefault: false, adminPassword: Buffer.from(ADMIN_PASSWORD),
    logLevel: 'warn', logDestination: 2, threads: 1,
    config: { host: '127.0.0.1', port, baseDn: SUFFIX, adminDn: 'cn=Directory Manager', anonymousRead: true, limits: DEFAULT_LIMITS },
  });
}

/** A cluster worker: what it runs depends on the spec and its index. */
async function clusterWorker(spec: ServerSpec): Promise<void> {
  process.on('disconnect', () => process.exit(0));
  const index = Number(process.env.BENCH_WORKER_INDEX);
  if (spec.kind === 'replica') {
    const dir = spec.dataDirs[index]!;
    if (spec.real) await startRealServer(dir, spec.port, createRegistry());
    else {
      const db = await openDb(dir);
      await startResponder(spec.port, (key) => db.getSync(key));
    }
  } else if (spec.ipc === 'cluster') await startResponder(spec.port, clusterLookup());
  else if (spec.ipc === 'unix') await startResponder(spec.port, await unixLookup(spec.socketPath!));
  else await startResponder(spec.port, await manyLevelLookup(spec.socketPath!));
  process.send!({ ready: true });
}

/** The primary of a cluster variant: owns LevelDB (split), forks the workers, says "ready". */
async function clusterPrimary(spec: ServerSpec): Promise<void> {
  const db = spec.kind === 'split' ? await openDb(spec.dataDirs[0]!) : undefined;
  let ipcServer: net.Server | undefined;
  if (db && spec.ipc === 'unix') ipcServer = await serveUnix(spec.socketPath!, db);
  if (db && spec.ipc === 'many-level') ipcServer = await serveManyLevel(spec.socketPath!, db);
  cluster.setupPrimary({ exec: SCRIPT, args: ['server', JSON.stringify(spec)], serialization: 'advanced' });
  const workers: ClusterWorker[] = [];
  let ready = 0;
  for (let index = 0; index < spec.workers; index += 1) {
    const worker = cluster.fork({ BENCH_WORKER_INDEX: String(index) });
    workers.push(worker);
    worker.on('message', (message: { ready?: boolean; i?: number; k?: string }) => {
      if (message.ready) {
        ready += 1;
        if (ready === spec.workers) process.stdout.write('ready\n');
        return;
      }
      const record = db!.getSync(message.k!);
      worker.send({ i: message.i, v: record ?? null });
    });
  }
  process.once('SIGTERM', () => {
    let left = workers.length;
    const done = async (): Promise<void> => {
      ipcServer?.close();
      await db?.close();
      process.exit(0);
    };
    for (const worker of workers) {
      worker.once('exit', () => { left -= 1; if (left === 0) void done(); });
      worker.kill();
    }
  });
}

/** Verification on worker threads: the main thread posts (password, stored), gets the status back. */
function offloadingRegistry(threads: number): SchemeRegistry {
  const registry = createRegistry();
  const pool = Array.from({ length: threads }, () => new Worker(SCRIPT, { workerData: { role: 'verify' } }));
  const pending = new Map<number, (result: VerifyResult) => void>();
  let next = 0;
  for (const worker of pool) {
    worker.on('message', (message: { i: number; r: VerifyResult }) => {
      const resolve = pending.get(message.i)!;
      pending.delete(message.i);
      resolve(message.r);
    });
    worker.unref();
  }
  const offloaded = Object.create(registry) as SchemeRegistry;
  offloaded.verify = (password: Uint8Array, stored: string) => new Promise<VerifyResult>((resolve) => {
    const i = next++;
    pending.set(i, resolve);
    pool[i % threads]!.postMessage({ i, p: password, s: stored });
  });
  return offloaded;
}

function verifyThread(): void {
  const registry = createRegistry();
  parentPort!.on('message', (message: { i: number; p: Uint8Array; s: string }) => {
    void registry.verify(message.p, message.s).then((r) => parentPort!.postMessage({ i: message.i, r }));
  });
}

async function serverRole(spec: ServerSpec): Promise<void> {
  if (cluster.isWorker) return clusterWorker(spec);
  if (spec.kind === 'threads') {
    await startRealServer(spec.dataDirs[0]!, spec.port, offloadingRegistry(spec.workers));
    process.stdout.write('ready\n');
    process.once('SIGTERM', () => process.exit(0));
    return;
  }
  if (spec.kind === 'mt') {
    // Every thread runs the whole responder on the same LevelDB (multithreading) and the same
    // listening socket: the main thread listens, the others poll its file descriptor (Linux
    // wakes one of them per connection). Node 20 cannot transfer a socket to a thread, nor set
    // SO_REUSEPORT (net's reusePort arrived in 22.12); `_handle.fd` is internal.
    const db = await openDb(spec.dataDirs[0]!, true);
    const server = await startResponder(spec.port, (key) => db.getSync(key));
    const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
    await Promise.all(Array.from({ length: spec.workers - 1 }, () => new Promise<void>((resolve, reject) => {
      const thread = new Worker(SCRIPT, { workerData: { role: 'mt', fd, dataDir: spec.dataDirs[0] } });
      thread.once('message', () => resolve());
      thread.once('error', reject);
    })));
    process.stdout.write('ready\n');
    process.once('SIGTERM', () => process.exit(0));
    return;
  }
  if (spec.kind === 'mini') {
    const db = await openDb(spec.dataDirs[0]!);
    await startResponder(spec.port, (key) => db.getSync(key));
    process.stdout.write('ready\n');
    process.once('SIGTERM', () => { void db.close().then(() => process.exit(0)); });
    return;
  }
  return clusterPrimary(spec);
}

// ---------------------------------------------------------------------------------------------
// Micro benchmarks: the steps of one bind, and what one round trip of each IPC costs
// ---------------------------------------------------------------------------------------------

interface MicroRow { readonly what: string; /** CPU µs for synchronous steps, wall µs for round trips. */ readonly usPerOp: number; readonly cpuUsPerOp?: number; readonly note?: string }

/**
 * CPU µs per op of a synchronous body (this process's CPU time, so a busy machine does not
 * inflate it as it does wall time), best of 3 runs.
 */
function timeSync(count: number, body: (i: number) => void): number {
  let best = Infinity;
  for (let run = 0; run < 3; run += 1) {
    const before = process.cpuUsage();
    for (let i = 0; i < count; i += 1) body(i);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / count);
  }
  return best;
}

/** Round trips with `inFlight` outstanding: wall µs per op, and CPU µs per op of this process plus `otherPids`. */
async function roundTrips(count: number, inFlight: number, call: (i: number) => Promise<unknown>, otherPids: readonly number[] = []): Promise<{ wall: number; cpu: number }> {
  for (let i = 0; i < 2000; i += 1) await call(i); // warm-up
  const cpuBefore = process.cpuUsage();
  const othersBefore = otherPids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const start = performance.now();
  let issued = 0;
  const lane = async (): Promise<void> => {
    while (issued < count) await call(issued++);
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const wall = (performance.now() - start) * 1000 / count;
  const cpu = process.cpuUsage(cpuBefore);
  const others = otherPids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) - othersBefore;
  return { wall, cpu: ((cpu.user + cpu.system) + others * 1e6) / count };
}

/** The far end of an IPC round-trip test, in a child process: answers key -> record. */
async function ipcEchoChild(dataDir: string, mode: string, path: string): Promise<void> {
  const db = await openDb(dataDir);
  if (mode === 'cluster') {
    process.on('message', (message: { i: number; k: string }) => process.send!({ i: message.i, v: db.getSync(message.k) ?? null }));
  } else if (mode === 'unix') await serveUnix(path, db);
  else await serveManyLevel(path, db);
  process.send!({ ready: true });
  process.on('disconnect', () => process.exit(0));
}

async function micro(dataDir: string, users: number): Promise<MicroRow[]> {
  const rows: MicroRow[] = [];
  const registry = createRegistry();
  const frames = Array.from({ length: 1000 }, (_, i) => encodeSimpleBind(i + 1, userDn(i % users), Buffer.from('password')));
  const names = Array.from({ length: users }, (_, i) => userDn(i));
  const pick = (i: number): number => (i * 7919) % users;
  rows.push({ what: 'decodeRequest (BindRequest frame)', usPerOp: timeSync(100_000, (i) => { decodeRequest(frames[i % 1000]!); }) });
  rows.push({ what: 'parseDn + dnKey + entryKey (uncached)', usPerOp: timeSync(50_000, (i) => { entryKey(dnKey(parseDn(names[pick(i)]!))); }) });
  for (const name of names) keyOf(name);
  const allKeys = names.map((name) => keyOf(name));
  rows.push({ what: 'bind DN -> key, cached (Map)', usPerOp: timeSync(200_000, (i) => { keyOf(names[pick(i)]!); }) });
  const db = await openDb(dataDir);
  for (const key of allKeys) db.getSync(key); // warm LevelDB's cache, as a running server has
  rows.push({ what: 'LevelDB getSync (random user, warm cache)', usPerOp: timeSync(100_000, (i) => { db.getSync(allKeys[pick(i)]!); }) });
  const records = allKeys.slice(0, 1000).map((key) => db.getSync(key)!);
  const sample = decodeEntry(records[0]!);
  rows.push({ what: 'decodeEntry + userPassword values', note: `record ${records[0]!.length} bytes, ${sample.attributes.length} attributes`, usPerOp: timeSync(100_000, (i) => { values(decodeEntry(records[i % 1000]!), 'userPassword').map((v) => v.toString('utf8')); }) });
  const stored = values(decodeEntry(records[0]!), 'userPassword')[0]!.toString('utf8');
  const password = Buffer.from('password');
  const verifyCount = stored.startsWith('{PBKDF2') ? 300 : 30_000;
  const verify = await roundTrips(verifyCount, 1, () => registry.verify(password, stored));
  rows.push({ what: `registry.verify ${stored.slice(0, stored.indexOf('}') + 1)} (sequential)`, usPerOp: verify.wall, cpuUsPerOp: verify.cpu });
  rows.push({ what: 'encodeBindResponse', usPerOp: timeSync(200_000, (i) => { encodeBindResponse(i + 1, { code: 0 }); }) });
  await db.close();

  // Worker thread: postMessage there and back (what offloading one verification adds).
  const thread = new Worker(SCRIPT, { workerData: { role: 'echo' } });
  const waiting = new Map<number, () => void>();
  thread.on('message', (i: number) => { const done = waiting.get(i)!; waiting.delete(i); done(); });
  const post = (i: number) => new Promise<void>((resolve) => { waiting.set(i, resolve); thread.postMessage({ i, p: password, s: stored }); });
  for (const inFlight of [1, 32]) {
    const result = await roundTrips(50_000, inFlight, post);
    rows.push({ what: `worker_threads postMessage round trip, ${inFlight} in flight`, usPerOp: result.wall, cpuUsPerOp: result.cpu, note: 'CPU: whole process (both threads)' });
  }
  await thread.terminate();

  // Another process holding LevelDB: a get over each IPC mechanism.
  const modes = ['cluster', 'unix', ...(process.env.MANY_LEVEL_DIR ? ['many-level'] : [])];
  for (const mode of modes) {
    const path = join(tmpdir(), `leveldap-bench-ipc-${process.pid}.sock`);
    rmSync(path, { force: true });
    const child = fork(SCRIPT, ['ipc-child', dataDir, mode, path], { serialization: 'advanced', stdio: 'inherit' });
    await new Promise<void>((resolve) => child.once('message', () => resolve()));
    let get: Lookup;
    if (mode === 'cluster') {
      const pending = new Map<number, () => void>();
      child.on('message', (message: { i: number }) => { const done = pending.get(message.i)!; pending.delete(message.i); done(); });
      let counter = 0;
      get = (key) => new Promise((resolve) => { const i = counter++; pending.set(i, () => resolve(undefined)); child.send({ i, k: key }); });
    } else get = mode === 'unix' ? await unixLookup(path) : await manyLevelLookup(path);
    for (const inFlight of [1, 32]) {
      const result = await roundTrips(30_000, inFlight, (i) => Promise.resolve(get(allKeys[pick(i)]!)), [child.pid!]);
      rows.push({ what: `get through ${mode} IPC, ${inFlight} in flight`, usPerOp: result.wall, cpuUsPerOp: result.cpu, note: 'CPU: both processes' });
    }
    child.kill();
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(path, { force: true });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// The orchestrator
// ---------------------------------------------------------------------------------------------

interface Variant { readonly name: string; readonly processes: string; spec?(port: number, dirs: readonly string[], socketPath: string): ServerSpec }

const ALL_VARIANTS: readonly Variant[] = [
  { name: 'serve', processes: '1' },
  { name: 'mini-1', processes: '1', spec: (port, dirs) => ({ kind: 'mini', port, dataDirs: dirs.slice(0, 1), workers: 0 }) },
  { name: 'ipc-1', processes: '1+1', spec: (port, dirs) => ({ kind: 'split', port, dataDirs: dirs.slice(0, 1), workers: 1, ipc: 'cluster' }) },
  { name: 'ipc-2', processes: '1+2', spec: (port, dirs) => ({ kind: 'split', port, dataDirs: dirs.slice(0, 1), workers: 2, ipc: 'cluster' }) },
  { name: 'unix-1', processes: '1+1', spec: (port, dirs, path) => ({ kind: 'split', port, dataDirs: dirs.slice(0, 1), workers: 1, ipc: 'unix', socketPath: path }) },
  { name: 'unix-2', processes: '1+2', spec: (port, dirs, path) => ({ kind: 'split', port, dataDirs: dirs.slice(0, 1), workers: 2, ipc: 'unix', socketPath: path }) },
  { name: 'many-level-2', processes: '1+2', spec: (port, dirs, path) => ({ kind: 'split', port, dataDirs: dirs.slice(0, 1), workers: 2, ipc: 'many-level', socketPath: path }) },
  { name: 'mt-2', processes: '1 (2 event-loop threads)', spec: (port, dirs) => ({ kind: 'mt', port, dataDirs: dirs.slice(0, 1), workers: 2 }) },
  { name: 'threads-2', processes: '1 (+2 threads)', spec: (port, dirs) => ({ kind: 'threads', port, dataDirs: dirs.slice(0, 1), workers: 2 }) },
  { name: 'replica-1', processes: '1+1', spec: (port, dirs) => ({ kind: 'replica', port, dataDirs: dirs.slice(0, 1), workers: 1, real: true }) },
  { name: 'replica-2', processes: '1+2', spec: (port, dirs) => ({ kind: 'replica', port, dataDirs: dirs.slice(0, 2), workers: 2, real: true }) },
  { name: 'mini-replica-2', processes: '1+2', spec: (port, dirs) => ({ kind: 'replica', port, dataDirs: dirs.slice(0, 2), workers: 2, real: false }) },
];

interface Running { readonly pid: number; readonly port: number; stop(): Promise<void> }

function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch { /* gone */ }
  }
  const all: number[] = [];
  const walk = (parent: number): void => { for (const child of children.get(parent) ?? []) { all.push(child); walk(child); } };
  walk(pid);
  return all;
}

/** Busy CPU seconds of the whole machine so far (all cores), from /proc/stat. */
function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return (total - fields[3]! - fields[4]!) / 100;
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (await canConnect(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) { resolve(); return; }
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => { clearTimeout(force); resolve(); });
    child.kill('SIGTERM');
  });
}

async function start(variant: Variant, dirs: readonly string[]): Promise<Running> {
  const port = await freePort();
  const env = { ...process.env, UV_THREADPOOL_SIZE: THREADPOOL, LEVELDAP_ADMIN_PASSWORD: ADMIN_PASSWORD };
  if (!variant.spec) {
    const child = spawn(process.execPath, [LEVELDAP_BIN, 'serve', '--data', dirs[0]!, '--port', String(port), '--log-level', 'warn', '--threads', '1'],
      { stdio: ['ignore', 'ignore', 'inherit'], env });
    await waitForPort(port);
    return { pid: child.pid!, port, stop: stopper(child) };
  }
  const socketPath = join(tmpdir(), `leveldap-bench-${process.pid}-${port}.sock`);
  rmSync(socketPath, { force: true });
  const child = spawn(process.execPath, [SCRIPT, 'server', JSON.stringify(variant.spec(port, dirs, socketPath))],
    { stdio: ['ignore', 'pipe', 'inherit'], env });
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => { text += chunk.toString(); if (text.includes('ready\n')) resolve(); });
    child.once('exit', (code) => reject(new Error(`${variant.name} exited (${code}) before it was ready`)));
  });
  const stop = stopper(child);
  return { pid: child.pid!, port, stop: async () => { await stop(); rmSync(socketPath, { force: true }); } };
}

interface Measured extends LoadResult {
  readonly variant: string;
  readonly scheme: string;
  readonly round: number;
  readonly serverCpuSeconds: number;
  readonly serverCores: number;
  readonly clientCores: number;
  /** Cores busy with anything else on the machine during the window (other people's work). */
  readonly otherCores: number;
  readonly cpuUsPerBind: number;
  /** Main-thread (event loop) cores of each process, the root (primary) first. */
  readonly loopCores: readonly number[];
  /** Root process's event-loop CPU per bind: what one thread must do for every bind. */
  readonly primaryLoopUsPerBind: number;
  /** Event-loop CPU per bind summed over the other processes (cluster workers). */
  readonly workerLoopUsPerBind: number;
  readonly rssMb: number;
  readonly pids: number;
}

const WARM_UP_SECONDS = 2;

/**
 * QUIET=S: before a run, wait up to S seconds for the machine to be quiet (under 0.15 busy
 * cores over one second): other people's work on a small shared machine swamps the differences.
 */
async function waitForQuiet(): Promise<void> {
  const limit = Number(process.env.QUIET ?? 0);
  const deadline = Date.now() + limit * 1000;
  while (Date.now() < deadline) {
    const before = machineBusySeconds();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (machineBusySeconds() - before < 0.15) return;
  }
}

async function measure(variant: Variant, scheme: string, round: number, dirs: readonly string[], users: number, seconds: number, connections: number): Promise<Measured> {
  await waitForQuiet();
  const server = await start(variant, dirs);
  try {
    const pids = [server.pid, ...descendants(server.pid)];
    const serverCpu = (): number => pids.reduce((sum, pid) => { try { return sum + cpuSeconds(pid); } catch { return sum; } }, 0);
    const loops = (): number[] => pids.map((pid) => { try { return threadCpuSeconds(pid, pid); } catch { return 0; } });
    let loopsStart: number[] = [];
    let loopsEnd: number[] = [];
    let cpuStart = 0;
    let cpuEnd = 0;
    let busyStart = 0;
    let busyEnd = 0;
    let clientStart = process.cpuUsage();
    let clientEnd = process.cpuUsage(clientStart);
    const t0 = setTimeout(() => { cpuStart = serverCpu(); loopsStart = loops(); busyStart = machineBusySeconds(); clientStart = process.cpuUsage(); }, WARM_UP_SECONDS * 1000);
    const t1 = setTimeout(() => { cpuEnd = serverCpu(); loopsEnd = loops(); busyEnd = machineBusySeconds(); clientEnd = process.cpuUsage(clientStart); }, (WARM_UP_SECONDS + seconds) * 1000);
    const load = await runBindLoad({ host: '127.0.0.1', port: server.port, users, password: Buffer.from('password'), dn: userDn },
      { connections, seconds, warmUpSeconds: WARM_UP_SECONDS });
    clearTimeout(t0);
    clearTimeout(t1);
    const rss = pids.reduce((sum, pid) => { try { return sum + residentBytes(pid); } catch { return sum; } }, 0);
    const cpu = cpuEnd - cpuStart;
    const expected = load.throughput * seconds;
    const clientCores = (clientEnd.user + clientEnd.system) / 1e6 / seconds;
    const loopSeconds = loopsEnd.map((end, i) => end - (loopsStart[i] ?? 0));
    const perBind = (cpu: number): number => (expected > 0 ? cpu * 1e6 / expected : 0);
    return {
      ...load, variant: variant.name, scheme, round, serverCpuSeconds: cpu, serverCores: cpu / seconds,
      clientCores, otherCores: Math.max(0, (busyEnd - busyStart) / seconds - cpu / seconds - clientCores), cpuUsPerBind: expected > 0 ? cpu * 1e6 / expected : 0,
      rssMb: rss / 2 ** 20, pids: pids.length,
      loopCores: loopSeconds.map((cpu) => cpu / seconds),
      primaryLoopUsPerBind: perBind(loopSeconds[0] ?? 0),
      workerLoopUsPerBind: perBind(loopSeconds.slice(1).reduce((a, b) => a + b, 0)),
    };
  } finally {
    await server.stop();
  }
}

function leveldap(args: string[], input?: Buffer): Buffer {
  const result = spawnSync(process.execPath, [LEVELDAP_BIN, ...args], { input, maxBuffer: 1 << 30, env: { ...process.env, UV_THREADPOOL_SIZE: THREADPOOL } });
  if (result.status !== 0) throw new Error(`leveldap ${args[0]} failed: ${result.stderr.toString()}`);
  return result.stdout;
}

const errorCount = (m: Measured): number => Object.values(m.errors).reduce((a, b) => a + b, 0);

function table(rows: readonly Measured[], variants: readonly Variant[]): string[] {
  const lines = [
    '| scheme | variant | processes | binds/s | p50 ms | p99.9 ms | server CPU µs/bind | root loop µs/bind | worker loops µs/bind | server cores | event-loop cores per process | client cores | other cores | RSS MB (sum) | errors |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const variant = variants.find((v) => v.name === row.variant)!;
    lines.push(`| ${row.scheme} | ${row.variant} | ${variant.processes} | ${Math.round(row.throughput)} | ${row.p50Ms.toFixed(2)} | ${row.p999Ms.toFixed(2)} | `
      + `${Math.round(row.cpuUsPerBind)} | ${Math.round(row.primaryLoopUsPerBind)} | ${Math.round(row.workerLoopUsPerBind)} | ${row.serverCores.toFixed(2)} | `
      + `${row.loopCores.map((c) => c.toFixed(2)).join(' / ')} | ${row.clientCores.toFixed(2)} | ${row.otherCores.toFixed(2)} | ${Math.round(row.rssMb)} | ${errorCount(row)} |`);
  }
  return lines;
}

async function orchestrate(): Promise<void> {
  const users = Number(process.env.USERS ?? 10_000);
  const seconds = Number(process.env.SECONDS ?? 5);
  const connections = Number(process.env.CONNECTIONS ?? 32);
  const rounds = Number(process.env.ROUNDS ?? 2);
  const schemes = (process.env.SCHEMES ?? 'SSHA512,PBKDF2-SHA256').split(',');
  const wanted = process.env.VARIANTS?.split(',');
  const variants = ALL_VARIANTS.filter((v) => (wanted ? wanted.includes(v.name) : v.name !== 'many-level-2' || process.env.MANY_LEVEL_DIR));
  const all: Measured[] = [];
  const best: Measured[] = [];
  const microRows: string[] = ['| scheme | step | µs per op (CPU for steps, wall for round trips) | CPU µs per op (all threads/processes) | note |', '|---|---|---:|---:|---|'];
  const root = mkdtempSync(join(tmpdir(), 'leveldap-bench-processes-'));
  const cleanUp = (): void => rmSync(root, { recursive: true, force: true });
  process.once('SIGINT', () => { cleanUp(); process.exit(130); });
  try {
    for (const scheme of schemes) {
      process.stderr.write(`${scheme}: ${users} users, import...\n`);
      const ldif = leveldap(['make-ldif', '--users', String(users), '--scheme', scheme, '--seed', 'bench']);
      const sample = /^userPassword: (.{0,40})/m.exec(ldif.toString('utf8'))?.[1];
      process.stderr.write(`${scheme}: stored values look like ${sample}...\n`);
      const dirs = [join(root, `${scheme}-0`), join(root, `${scheme}-1`)];
      leveldap(['import-ldif', '-', '--data', dirs[0]!], ldif);
      cpSync(dirs[0]!, dirs[1]!, { recursive: true });
      if (process.env.MICRO !== '0') {
        process.stderr.write(`${scheme}: micro benchmarks...\n`);
        const child = spawnSync(process.execPath, [SCRIPT, 'micro', dirs[0]!, String(users)], { env: { ...process.env, UV_THREADPOOL_SIZE: THREADPOOL }, stdio: ['ignore', 'pipe', 'inherit'] });
        for (const row of JSON.parse(child.stdout.toString() || '[]') as MicroRow[]) {
          microRows.push(`| ${scheme} | ${row.what} | ${row.usPerOp.toFixed(2)} | ${row.cpuUsPerOp === undefined ? '' : row.cpuUsPerOp.toFixed(2)} | ${row.note ?? ''} |`);
        }
      }
      const byVariant = new Map<string, Measured>();
      for (let round = 1; round <= rounds; round += 1) {
        for (const variant of variants) {
          const result = await measure(variant, scheme, round, dirs, users, seconds, connections);
          all.push(result);
          process.stderr.write(`${scheme} round ${round} ${variant.name}: ${Math.round(result.throughput)} binds/s, p99.9 ${result.p999Ms.toFixed(2)} ms, `
            + `${Math.round(result.cpuUsPerBind)} µs CPU/bind (root loop ${Math.round(result.primaryLoopUsPerBind)}, worker loops ${Math.round(result.workerLoopUsPerBind)}), server ${result.serverCores.toFixed(2)} + client ${result.clientCores.toFixed(2)} + other ${result.otherCores.toFixed(2)} cores, `
            + `${Math.round(result.rssMb)} MB, ${errorCount(result)} errors\n`);
          const previous = byVariant.get(variant.name);
          if (!previous || result.throughput > previous.throughput) byVariant.set(variant.name, result);
        }
      }
      best.push(...variants.map((v) => byVariant.get(v.name)!));
    }
  } finally {
    cleanUp();
  }
  const header = `${users} users, ${connections} connections, ${seconds} s per run after ${WARM_UP_SECONDS} s warm-up, ${rounds} alternating rounds, `
    + `${availableParallelism()} cores (client on the same cores), Node ${process.version}, UV_THREADPOOL_SIZE=${THREADPOOL}`;
  const output = [header, '', 'Best of the rounds (by binds/s):', '', ...table(best, ALL_VARIANTS), '', 'Every run:', '', ...table(all, ALL_VARIANTS),
    ...(microRows.length > 2 ? ['', 'Micro benchmarks (one process, no load):', '', ...microRows] : [])];
  writeFileSync(join(tmpdir(), 'leveldap-bench-processes.md'), `${output.join('\n')}\n`);
  writeFileSync(join(tmpdir(), 'leveldap-bench-processes.json'), `${JSON.stringify(all, null, 1)}\n`);
  process.stdout.write(`\n${output.join('\n')}\n`);
}

// ---------------------------------------------------------------------------------------------

const role = process.argv[2] ?? 'bench';
if (!isMainThread) {
  const data = workerData as { role: string };
  if (data.role === 'verify') verifyThread();
  else if (data.role === 'mt') {
    const { fd, dataDir } = workerData as { fd: number; dataDir: string };
    const db = await openDb(dataDir, true);
    await startResponder({ fd }, (key) => db.getSync(key));
    parentPort!.postMessage('ready');
  }
  else parentPort!.on('message', (message: { i: number }) => parentPort!.postMessage(message.i));
} else if (role === 'server') {
  await serverRole(JSON.parse(process.argv[3]!) as ServerSpec);
} else if (role === 'micro') {
  const rows = await micro(process.argv[3]!, Number(process.argv[4] ?? 10_000));
  process.stdout.write(JSON.stringify(rows));
  process.exit(0);
} else if (role === 'ipc-child') {
  await ipcEchoChild(process.argv[3]!, process.argv[4]!, process.argv[5]!);
} else if (role === 'bench') {
  if (!existsSync(LEVELDAP_BIN)) throw new Error(`no ${LEVELDAP_BIN}`);
  await orchestrate();
} else {
  process.stderr.write('usage: node dist/scripts/bench-processes.js [bench | micro DATA_DIR USERS]\n');
  process.exit(2);
}
