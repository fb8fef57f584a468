/**
 * A node's local copy of the PostgreSQL store, kept by logical decoding (docs/scale-out.md):
 *
 * 1. Start: a node whose LevelDB already copies this store through its slot resumes at the
 *    position stored in it. Otherwise it creates its replication slot with an exported snapshot,
 *    copies every row as of that snapshot (an empty LevelDB; a copy whose slot was lost, or a
 *    copy cut short, which has no position, is wiped first), and stores the slot's starting point.
 * 2. Stream: the PostgreSQL transactions become LevelDB batches (changes.ts), in order, each
 *    batch holding the position after its last transaction, so the copy is always a prefix of
 *    the store's history and a restart resumes exactly where it is; the transactions that
 *    arrive while a batch is written go together in the next (apply-queue.ts). The batches are
 *    not synced one by one (the write is already durable in PostgreSQL; a killed process loses
 *    none of them, the OS has them): every second the position is synced, and only a synced
 *    position is acknowledged to PostgreSQL, so after an OS crash the slot still holds whatever
 *    the copy lost. A write's token (a logical decoding message in its transaction, record.ts)
 *    is resolved once its batch is written: the writer then reads its own write.
 * 3. Faults: the stream is pinged every second (a reply proves PostgreSQL answers, fresh()); a
 *    broken stream is started again from the stored position every second until it works.
 */
import pg from 'pg';
import { LogicalReplicationService, PgoutputPlugin } from 'pg-logical-replication';
import { StoreError } from '../errors.js';
import { metaKey } from '../keys.js';
import { put, type BatchOp } from '../batch-ops.js';
import { localBatch, settingOps, type EntryRow } from './changes.js';
import { ApplyQueue, type Written } from './apply-queue.js';
import { formatLsn, parseLsn } from './lsn.js';
import { ENTRIES, MESSAGE_PREFIX, PUBLICATION, SETTINGS, storeIdentity } from './schema.js';
import { tokensOf } from './statements.js';

/** What the applier needs of the node's LevelDB (a DirectoryStore). */
export interface LocalCopy {
  readonly dir: string;
  readonly indexed: ReadonlySet<string>;
  records(keys: readonly string[]): Promise<(Buffer | undefined)[]>;
  writeLocal(ops: readonly BatchOp[], sync: boolean): Promise<void>;
  getMeta(name: string): Promise<string | undefined>;
  hasEntries(): Promise<boolean>;
  wipe(): Promise<void>;
  compact(): Promise<void>;
}

export interface ApplierLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Meta keys of a local copy: which store it copies, through which slot, and up to where (written
 * with each batch); and the position last synced (written only by the sync: had the sync written
 * `position`, a batch written meanwhile would have had its newer one replaced by an older).
 */
const META = { store: 'pg:store', slot: 'pg:slot', position: 'pg:position', synced: 'pg:synced' } as const;

/** Entries the applier remembers changing (changedSince); an older change counts as recent. */
const REMEMBERED_CHANGES = 100_000;
/** Rows copied per LevelDB batch when a node copies the store. */
const COPY_BATCH = 2000;
const PING_MILLIS = 1000;
/** A stream PostgreSQL has not answered for this long (its pings included) is taken as broken and started again. */
const SILENT_MILLIS = 10_000;
/** Connecting for the stream gives up after this long (PostgreSQL hung, or the network silent). */
const CONNECT_MILLIS = 3000;
/** How often the applied position is synced and acknowledged. */
const SYNC_MILLIS = 1000;
const RETRY_MILLIS = 1000;

interface Transaction {
  readonly entries: Map<string, EntryRow | null>;
  readonly settings: Map<string, string | null>;
  readonly tokens: string[];
}

type Decoded =
  | { tag: 'begin' }
  | { tag: 'commit'; commitEndLsn: string | null }
  | { tag: 'insert' | 'update'; relation: { name: string }; new: Record<string, unknown> }
  | { tag: 'delete'; relation: { name: string }; key: Record<string, unknown> | null; old: Record<string, unknown> | null }
  | { tag: 'message'; transactional: boolean; prefix: string; content: Uint8Array }
  | { tag: 'truncate' | 'relation' | 'origin' | 'type' };

/**
 * Tells PostgreSQL the copy holds everything before `position` (the slot's confirmed position
 * becomes `position`). pg-logical-replication's acknowledge() takes the last byte received and
 * sends that plus one, so it is given the byte before: handed `position` itself, the slot would
 * confirm one byte too far, and a transaction whose commit record starts exactly there (one that
 * wrote before the last one applied and committed right after it) would never be streamed again.
 */
function acknowledge(service: LogicalReplicationService | undefined, position: bigint, ping = false): void {
  void service?.acknowledge(formatLsn(position > 0n ? position - 1n : 0n), ping);
}

/**
 * pgoutput, counting the stream's messages as they arrive (before they wait their turn to be
 * applied), its columns in binary: a record comes as its bytes, not as hex text decoded again
 * here (PostgreSQL 14 and later; the store already needs 14 for `messages`).
 */
class CountingPlugin extends PgoutputPlugin {
  constructor(private readonly arrived: () => void) {
    super({ protoVersion: 1, publicationNames: [PUBLICATION], messages: true });
  }

  override parse(buffer: Buffer): ReturnType<PgoutputPlugin['parse']> {
    this.arrived();
    return super.parse(buffer);
  }

  override start(client: pg.Client, slot: string, position: string): Promise<unknown> {
    return client.query(`START_REPLICATION SLOT "${slot}" LOGICAL ${position} (proto_version '1', publication_names '${PUBLICATION}', messages 'true', binary 'true')`);
  }
}

/** A text column as the binary stream brings it (its UTF-8 bytes). */
function text(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

/**
 * A bytea column's bytes, copied: the stream's values are views into pg's read buffer, which its
 * next read may write over while the transaction still waits in the queue.
 */
function bytes(value: unknown): Buffer {
  return Buffer.from(value as Uint8Array);
}

/**
 * PostgreSQL's answer when a slot does not exist (undefined_object), or exists without the WAL it
 * needs (invalidated by max_slot_wal_keep_size), as START_REPLICATION gives them.
 */
function isMissingSlot(error: Error): boolean {
  const code = (error as { code?: string }).code;
  return code === '42704' || /replication slot .* does not exist/.test(error.message)
    || (code === '55000' && /cannot read from logical replication slot/.test(error.message));
}

export class Applier {
  private seq = 0;
  private readonly changed = new Map<string, number>();
  private forgotten = 0;
  /** The copy's writes, grouped; its position is what the copy holds. */
  private readonly queue: ApplyQueue;
  /** The position last synced to disk, and acknowledged: PostgreSQL keeps the WAL after it. */
  private durable = 0n;
  private syncing: NodeJS.Timeout | undefined;
  private readonly waiters = new Map<string, () => void>();
  /** Told when the next transaction is applied (waitApplied). */
  private appliedListeners: (() => void)[] = [];
  private transaction: Transaction | undefined;
  private service: LogicalReplicationService | undefined;
  private ping: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private contact = 0;
  /** When the current stream was started (its silence counts from then at the earliest). */
  private streamStarted = 0;
  /** The stream's messages: arrived, and applied (received() done); counted from each start of the stream. */
  private arrived = 0;
  private handled = 0;
  /** PostgreSQL's last keepalive: the WAL it has decoded and sent up to, and how many messages had arrived before it. */
  private keepalive: { readonly lsn: bigint; readonly after: number } | undefined;
  private loseSlot!: (error: Error) => void;
  /** Resolves if the node's slot disappears while it streams (a PostgreSQL failover drops logical slots): the node must restart and copy again. */
  readonly lost = new Promise<Error>((resolve) => { this.loseSlot = resolve; });

  constructor(private readonly copy: LocalCopy, private readonly url: string, readonly slot: string, private readonly log: ApplierLog) {
    this.queue = new ApplyQueue(copy, META.position, (written) => this.written(written), (error) => this.service && this.broken(this.service, error));
  }

  /** The transactions applied since start: the entry locks' clock (record.ts), and what waitApplied counts. */
  get clock(): number {
    return this.seq;
  }

  /** When PostgreSQL last answered the stream (ms since the epoch; 0: never). */
  get lastContact(): number {
    return this.contact;
  }

  /** The position the local copy holds (PostgreSQL's LSN after the last transaction applied). */
  get applied(): string {
    return formatLsn(this.queue.position);
  }

  /** Whether any of these entries changed after the clock read `since`, or is being changed now. */
  changedSince(keys: Iterable<string>, since: number): boolean {
    if (this.forgotten > since) return true;
    for (const key of keys) if (this.queue.holds(key) || (this.changed.get(key) ?? 0) > since) return true;
    return false;
  }

  /** Resolves true once the transaction carrying `token` is applied, false after `millis`; call before the commit. */
  waitFor(token: string, millis: number): { readonly done: Promise<boolean>; cancel(): void } {
    let timer: NodeJS.Timeout | undefined;
    const done = new Promise<boolean>((resolve) => {
      this.waiters.set(token, () => resolve(true));
      timer = setTimeout(() => {
        this.waiters.delete(token);
        resolve(false);
      }, millis);
    }).finally(() => clearTimeout(timer));
    return { done, cancel: () => this.waiters.get(token) && this.waiters.delete(token) && clearTimeout(timer) };
  }

  /** Resolves once more than `count` transactions have been applied (clock), or after `millis`. */
  waitApplied(count: number, millis: number): Promise<void> {
    if (this.seq > count) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, millis);
      this.appliedListeners.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Prepares the local copy (resume or copy, see the header), then starts streaming. */
  async start(): Promise<void> {
    const position = await this.prepare();
    this.queue.reset(position);
    this.durable = position;
    this.contact = Date.now();
    await this.subscribe();
    this.ping = setInterval(() => {
      this.checkSilence();
      acknowledge(this.service, this.durable, true);
    }, PING_MILLIS);
    this.ping.unref();
    this.syncing = setInterval(() => void this.syncPosition().catch((error: Error) => this.log.warn({ slot: this.slot, err: error.message }, 'could not sync the local copy\'s position')), SYNC_MILLIS);
    this.syncing.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.ping);
    clearInterval(this.syncing);
    clearTimeout(this.retry);
    await this.queue.drained();
    await this.syncPosition().catch(() => {});
    await this.service?.stop();
    this.service = undefined;
  }

  /** Syncs the position applied so far (a synced LevelDB write also makes every earlier one durable) and acknowledges it. */
  private async syncPosition(): Promise<void> {
    this.caughtUp();
    const position = this.queue.position;
    if (position <= this.durable) return;
    await this.copy.writeLocal([put(metaKey(META.synced), Buffer.from(formatLsn(position)))], true);
    this.durable = position;
    acknowledge(this.service, position);
  }

  /**
   * Once everything the stream sent before PostgreSQL's last keepalive is applied, and no
   * transaction is open, the copy holds the store as of the keepalive's position: the position
   * moves there, so the slot lets go of WAL the directory has no part in (other tables, other
   * databases) instead of keeping it until the directory's next write. PostgreSQL's own apply
   * worker confirms keepalives the same way.
   */
  private caughtUp(): void {
    const keepalive = this.keepalive;
    if (!keepalive || this.handled < keepalive.after || this.transaction || !this.queue.idle) return;
    this.keepalive = undefined;
    this.queue.advance(keepalive.lsn);
  }

  private async prepare(): Promise<bigint> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      const identity = await storeIdentity(client);
      const copied = await this.copy.getMeta(META.store);
      if (copied !== undefined && copied !== identity) {
        throw new StoreError(`${this.copy.dir} is the local copy of another PostgreSQL store (${copied}); give this node an empty --data directory`);
      }
      if (copied === undefined && await this.copy.hasEntries()) {
        throw new StoreError(`${this.copy.dir} holds entries that are not a copy of the PostgreSQL store; give this node an empty --data directory (import-ldif --store loads entries into PostgreSQL)`);
      }
      const slot = (await client.query<{ lost: boolean }>("SELECT wal_status = 'lost' AS lost FROM pg_replication_slots WHERE slot_name = $1", [this.slot])).rows[0];
      const position = await this.copy.getMeta(META.position);
      if (copied !== undefined && slot?.lost === false && position !== undefined && (await this.copy.getMeta(META.slot)) === this.slot) {
        this.log.info({ slot: this.slot, position }, 'the local copy resumes from its position in the PostgreSQL store');
        return parseLsn(position);
      }
      if (copied !== undefined) {
        const message = position === undefined ? 'the local copy was not finished (the node stopped while it copied the store): it is removed and copied again'
          : slot?.lost ? 'the replication slot of this node was invalidated (max_slot_wal_keep_size: PostgreSQL removed WAL it had not streamed): its local copy is removed and copied again'
            : 'the replication slot of this node is gone: its local copy is removed and copied again';
        this.log.warn({ slot: this.slot, data: this.copy.dir }, message);
        await this.copy.wipe();
      }
      if (slot) await client.query('SELECT pg_drop_replication_slot($1)', [this.slot]);
      const start = await this.copyStore(identity);
      await this.compacted();
      return start;
    } finally {
      await client.end();
    }
  }

  /**
   * Compacts a fresh copy, as import-ldif compacts what it loads: written in batches, it is
   * spread over overlapping tables that every read of an entry would search (binds on a copied
   * node ran slower than on an imported database before this).
   */
  private async compacted(): Promise<void> {
    const started = Date.now();
    await this.copy.compact();
    this.log.info({ slot: this.slot, ms: Date.now() - started }, 'the local copy was compacted');
  }

  /** Creates the slot with a snapshot and copies the store as of that snapshot; returns the slot's starting point. */
  private async copyStore(identity: string): Promise<bigint> {
    const started = Date.now();
    const replication = new pg.Client({ connectionString: this.url, replication: 'database' } as pg.ClientConfig);
    const reader = new pg.Client({ connectionString: this.url });
    await replication.connect();
    try {
      const created = (await replication.query(`CREATE_REPLICATION_SLOT ${this.slot} LOGICAL pgoutput EXPORT_SNAPSHOT`)).rows[0] as { consistent_point: string; snapshot_name: string };
      // Which store this copies, before any entry: a copy cut short is known as one (no position) and made again.
      await this.copy.writeLocal([put(metaKey(META.store), Buffer.from(identity)), put(metaKey(META.slot), Buffer.from(this.slot))], true);
      await reader.connect();
      await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await reader.query(`SET TRANSACTION SNAPSHOT '${created.snapshot_name}'`);
      const entries = await this.copyEntries(reader);
      const settings = await reader.query<{ name: string; value: string }>(`SELECT name, value FROM ${SETTINGS}`);
      await reader.query('COMMIT');
      await this.copy.writeLocal([
        ...settingOps(new Map(settings.rows.map((row) => [row.name, row.value]))),
        put(metaKey(META.position), Buffer.from(created.consistent_point)),
      ], true);
      this.log.info({ slot: this.slot, entries, ms: Date.now() - started }, 'the local copy of the PostgreSQL store was made');
      return parseLsn(created.consistent_point);
    } finally {
      await reader.end();
      await replication.end();
    }
  }

  private async copyEntries(reader: pg.Client): Promise<number> {
    await reader.query(`DECLARE copied NO SCROLL CURSOR FOR SELECT key, parent IS NULL AS suffix, record FROM ${ENTRIES}`);
    const none = new Map<string, Buffer | undefined>();
    let count = 0;
    for (;;) {
      const { rows } = await reader.query<{ key: string; suffix: boolean; record: Buffer }>(`FETCH ${COPY_BATCH} FROM copied`);
      if (rows.length === 0) return count;
      const batch = new Map(rows.map((row) => [row.key, { record: row.record, suffix: row.suffix }]));
      await this.copy.writeLocal(localBatch(batch, none, this.copy.indexed), false);
      count += rows.length;
    }
  }

  private async subscribe(): Promise<void> {
    const service = new LogicalReplicationService(
      { connectionString: this.url, connectionTimeoutMillis: CONNECT_MILLIS, keepAlive: true },
      { acknowledge: { auto: false, timeoutSeconds: 0 }, flowControl: { enabled: true } },
    );
    this.streamStarted = Date.now();
    this.arrived = 0;
    this.handled = 0;
    this.keepalive = undefined;
    const current = () => this.service === service; // a broken stream's last messages count for nothing
    service.on('data', async (_lsn: string, message: Decoded) => {
      await this.received(message);
      if (current()) this.handled += 1;
    });
    service.on('heartbeat', (lsn: string, _time: number, respond: boolean) => {
      this.contact = Date.now();
      if (!current()) return;
      this.keepalive = { lsn: parseLsn(lsn), after: this.arrived };
      this.caughtUp();
      if (respond) acknowledge(service, this.durable);
    });
    service.on('error', (error: Error) => this.broken(service, error));
    this.service = service;
    const plugin = new CountingPlugin(() => { if (current()) this.arrived += 1; });
    const streaming = service.subscribe(plugin, this.slot, formatLsn(this.queue.position));
    streaming.then(() => this.broken(service, new Error('the replication stream ended')), (error: Error) => this.broken(service, error));
    // START_REPLICATION refused (the slot still in use, say) rejects the stream without an 'error' event.
    await new Promise<void>((resolve, reject) => {
      service.once('start', () => resolve());
      service.once('error', reject);
      streaming.then(() => reject(new Error('the replication stream ended')), reject);
    });
  }

  /**
   * A stream that PostgreSQL has not answered for SILENT_MILLIS (it is pinged every second) is
   * broken, though its connection says nothing: a PostgreSQL that hangs, or a network that drops
   * everything without a reset, would otherwise leave the node on its stale copy until TCP gives
   * up (minutes; never on a Unix socket).
   */
  private checkSilence(): void {
    const service = this.service;
    const silent = Date.now() - Math.max(this.contact, this.streamStarted);
    if (service && silent > SILENT_MILLIS) this.broken(service, new Error(`PostgreSQL has not answered the stream for ${Math.round(silent / 1000)} s`));
  }

  /** The stream failed: started again from the stored position, every RETRY_MILLIS until it works (again). */
  private broken(service: LogicalReplicationService, error: Error): void {
    if (this.stopped || this.service !== service) return;
    this.service = undefined;
    this.transaction = undefined;
    if (isMissingSlot(error)) {
      this.log.error({ slot: this.slot, err: error.message }, 'the replication slot of this node is gone (a PostgreSQL failover drops logical slots): the node stops; started again, it copies the store anew');
      void service.stop();
      this.loseSlot(error);
      return;
    }
    this.log.warn({ slot: this.slot, err: error.message }, 'the replication stream from PostgreSQL broke; retrying every second');
    void service.stop();
    this.retry = setTimeout(() => this.again(), RETRY_MILLIS);
  }

  /** One try at streaming again. A failed try breaks its service (broken), which schedules the next: one try at a time. */
  private again(): void {
    if (this.stopped) return;
    this.queue.drained().then(() => {
      this.queue.reset(this.queue.position); // what was queued comes again from the stream
      return this.subscribe();
    }).then(
      () => this.log.info({ slot: this.slot, position: this.applied }, 'the replication stream from PostgreSQL resumed'),
      () => {},
    );
  }

  private async received(message: Decoded): Promise<void> {
    this.contact = Date.now();
    const transaction = this.transaction;
    switch (message.tag) {
      case 'begin':
        this.transaction = { entries: new Map(), settings: new Map(), tokens: [] };
        return;
      case 'insert':
      case 'update':
        if (transaction) this.row(transaction, message.relation.name, message.new);
        return;
      case 'delete':
        if (transaction) this.removed(transaction, message.relation.name, message.key ?? message.old ?? {});
        return;
      case 'message':
        if (message.prefix !== MESSAGE_PREFIX) return;
        if (message.transactional && transaction) transaction.tokens.push(...tokensOf(message.content));
        else for (const token of tokensOf(message.content)) await this.mark(token);
        return;
      case 'commit':
        this.transaction = undefined;
        if (transaction && message.commitEndLsn) await this.queue.add(transaction, parseLsn(message.commitEndLsn));
        return;
      case 'truncate':
        this.log.error({ slot: this.slot }, `a table of the store was truncated: the local copy no longer follows it (restart the node with an empty --data directory)`);
        return;
      default:
    }
  }

  private row(transaction: Transaction, table: string, row: Record<string, unknown>): void {
    if (table === ENTRIES) transaction.entries.set(text(row.key), { record: bytes(row.record), suffix: row.parent === null });
    else if (table === SETTINGS) transaction.settings.set(text(row.name), text(row.value));
  }

  private removed(transaction: Transaction, table: string, key: Record<string, unknown>): void {
    if (table === ENTRIES) transaction.entries.set(text(key.key), null);
    else if (table === SETTINGS) transaction.settings.set(text(key.name), null);
  }

  /** A mark outside any transaction: resolved once everything the stream brought before it is written. */
  private async mark(token: string): Promise<void> {
    if (this.queue.idle) this.resolve(token);
    else await this.queue.add({ entries: new Map(), settings: new Map(), tokens: [token] }, undefined);
  }

  /** Transactions written to the copy, in order: their entries count as changed, their tokens resolve. */
  private written(transactions: readonly Written[]): void {
    for (const { keys, tokens } of transactions) {
      this.remember(keys);
      for (const token of tokens) this.resolve(token);
    }
    const listeners = this.appliedListeners;
    this.appliedListeners = [];
    for (const listener of listeners) listener();
  }

  /**
   * Marks the entries as changed now (changedSince), once their batch is written: a write that
   * read one of them before (its old record) took its clock reading before this. Until then they
   * count as changed (the queue holds them): the batch may become readable before its write
   * resolves, so a write could read the old record, then the new one when it commits, and match
   * PostgreSQL.
   */
  private remember(keys: readonly string[]): void {
    this.seq += 1;
    for (const key of keys) {
      this.changed.delete(key);
      this.changed.set(key, this.seq);
    }
    while (this.changed.size > REMEMBERED_CHANGES) {
      const [oldest, seq] = this.changed.entries().next().value as [string, number];
      this.changed.delete(oldest);
      this.forgotten = Math.max(this.forgotten, seq);
    }
  }

  private resolve(token: string): void {
    const waiter = this.waiters.get(token);
    if (!waiter) return;
    this.waiters.delete(token);
    waiter();
  }
}
