/**
 * One client connection, owned here rather than by ldapjs: our own framing (size caps before
 * and after bind), requests kept as bytes until they are next (request-queue.ts), at most
 * `maxOutstanding` weight of operations in flight here and the thread's budget over all
 * connections (../threads/load.ts; reading pauses beyond, and the kernel is asked whether a paused
 * client left), binds run alone, idle timeouts counted in messages (shorter while not bound to a
 * DN), and malformed input closing only this connection, after a notice of disconnection. Its
 * writes are socket-writer.ts's, the admin's reserve reserve.ts's. StartTLS is taken on arrival:
 * once accepted, nothing more is read as LDAP in clear, and the connection goes on over a TLS
 * socket wrapped around the same TCP socket.
 */
import type { Socket } from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import { ResultCode, decodeRequest, encodeNoticeOfDisconnection, FrameError, FrameReader, peekRequest, ProtocolError, type DecodeOptions, type RequestHead } from '../../protocol/index.js';
import type { ExtendedRequest, Request } from '../../protocol/types.js';
import type { OperationContext, Reply, ServerContext } from '../context.js';
import { encodeReply, perform, type AnsweredRequest } from '../dispatch.js';
import { Abandoned } from '../errors.js';
import { logOperation } from './access-log.js';
import { IdleTimer, idleTimeoutMs } from './idle-timer.js';
import { RequestQueue } from './request-queue.js';
import { ReserveHold, RESERVE_REFUSAL } from './reserve.js';
import { SocketWriter, WRITE_STALL_MS } from './socket-writer.js';
import { Session } from './session.js';
import { PeerWatch } from './native-sys.js';
import { weightOf } from '../threads/load.js';
import { isStartTls, START_TLS_ACCEPTED, startTlsRefusal } from '../handlers/start-tls.js';
import { filterCap } from '../handlers/filter-cap.js';
import type { ConnectionRecord, MonitoredConnection } from '../monitor/connections.js';
import { kindIndex, SLOT, type ThreadStats } from '../monitor/stats.js';

export interface Transport {
  readonly secure?: boolean;
  readonly startTls?: SecureContext;
  /** Let in on the admin's reserve (--reserved-connections): it must bind as the admin first. */
  readonly reserve?: boolean;
  /** The TCP socket under a TLS one (LDAPS); the socket itself otherwise. */
  readonly tcp?: Socket;
  /** The URL of the listener that accepted it (cn=Monitor's monitorConnectionListener). */
  readonly listener?: string;
}

/** The answer to an operation that arrives while the server stops. */
const SHUTTING_DOWN: Reply = { code: ResultCode.unavailable, message: 'server shutting down' };

const EXTENDED = kindIndex('extended');
/**
 * Reading goes on while at most this many requests, of at most this many bytes, wait to start
 * (behind a bind, or for room): an Abandon or Unbind sent behind them is read, and acts, at once.
 * Past either, reading pauses until they start.
 */
const MAX_WAITING_REQUESTS = 32;
const MAX_WAITING_BYTES = 64 * 1024;

export class Connection implements MonitoredConnection {
  readonly session: Session;
  /** Resolves when the connection has closed. */
  readonly closed: Promise<void>;
  private socket: Socket;
  private readonly frames: FrameReader;
  /** Requests waiting for room (at most maxOutstanding weigh in flight at once), decoded when next. */
  private readonly queue = new RequestQueue();
  private closing = false;
  private ended = false;
  /** A bind runs alone (RFC 4511 4.2.1): nothing else starts while it is in progress. */
  private binding = false;
  /** StartTLS was accepted: nothing is read until the TLS socket takes over. */
  private upgrading = false;
  /** The server is stopping: operations not yet started are answered unavailable (52). */
  private refusing = false;
  private readonly startTlsContext: SecureContext | undefined;
  /** On the admin's reserve until a bind as the admin succeeds (reserve.ts). */
  private readonly reserve: ReserveHold;
  /** The weights (weightOf) of the operations in progress, summed. */
  private weightInFlight = 0;
  private readonly tcp: Socket;
  /** While reading is paused: checks that the client is still there. */
  private readonly peer: PeerWatch;
  private readonly idleTimer = new IdleTimer(() => this.onIdle());
  private readonly onSocketData = (chunk: Buffer): void => this.onData(chunk);
  /** The access log is on (level info or below): requests are timed for its wtime and etime. */
  private readonly timed: boolean;
  /** Called by the thread's load when operations finish, if this connection waited for room. */
  private readonly wake = (): void => this.pump();
  private markClosed!: () => void;
  /** This thread's counters (cn=Monitor, /metrics). */
  private readonly stats: ThreadStats;
  /** For cn=Connections: when it opened and last sent a message, what it sent and what finished. */
  private readonly startTime = Date.now();
  private activityTime = this.startTime;
  private opsReceived = 0;
  private opsCompleted = 0;
  private readonly listener: string;
  /** What handlers send through OperationContext.send: search entries, held with the response that follows (coalesceWrites). */
  private readonly sendEntry = (message: Buffer): Promise<void> | undefined => {
    this.stats.add(SLOT.entriesSent);
    return this.writer.sendPart(message);
  };
  /** What this connection writes goes through it (socket-writer.ts). */
  private readonly writer: SocketWriter;

  /**
   * `secure`: the socket is TLS already (LDAPS); `startTls`: the certificate StartTLS uses (without
   * one the request is an unknown extended operation).
   */
  constructor(socket: Socket, private readonly server: ServerContext, id: number, transport: Transport = {}) {
    const secure = transport.secure ?? false;
    const { limits } = server.config;
    this.session = new Session(id, `${socket.remoteAddress}:${socket.remotePort}`, limits.maxPagedSearches);
    this.session.secure = secure;
    this.startTlsContext = transport.startTls;
    this.stats = server.monitor.stats;
    this.listener = transport.listener ?? '';
    this.reserve = new ReserveHold(transport.reserve ?? false, () => this.disconnect(ResultCode.busy, RESERVE_REFUSAL));
    this.tcp = transport.tcp ?? socket;
    this.timed = server.log.isLevelEnabled('info');
    this.peer = new PeerWatch(this.tcp, () => {
      this.server.log.debug({ conn: this.session.id }, 'the client left while its requests waited');
      this.socket.destroy();
    });
    this.frames = new FrameReader({ maxBytes: limits.maxMessageBytesAnonymous });
    this.closed = new Promise((resolve) => { this.markClosed = resolve; });
    socket.setNoDelay(true);
    this.socket = socket;
    this.writer = new SocketWriter(socket, this.stats, () => this.disconnect(ResultCode.unavailable, 'client stopped reading'), () => this.closing);
    this.attach(socket);
    server.monitor.connections.add(this);
    server.log.debug({ conn: id, remote: this.session.remote, secure }, 'connection opened');
  }

  /** Reads LDAP messages from `socket` and writes to it from now on. */
  private attach(socket: Socket): void {
    this.socket = socket;
    this.writer.socket = socket;
    this.setIdleTimeout();
    socket.on('data', this.onSocketData);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.server.log.debug({ conn: this.session.id, code: error.code, err: error.message }, 'connection error');
      socket.destroy();
    });
    socket.on('close', () => this.onClose());
  }

  /** Now, for the access log's times; 0 when the access log is off (nothing is measured). */
  private clock(): number {
    return this.timed ? performance.now() : 0;
  }

  get idle(): boolean {
    return this.session.outstanding === 0 && this.queue.length === 0;
  }

  /** The server stops: operations in progress finish; any other, queued or still to come, is answered unavailable. */
  refuseNewOperations(): void {
    this.refusing = true;
    this.pump();
  }

  /**
   * Takes one message; false once nothing more may be read as LDAP in clear (closing, or StartTLS
   * accepted). Unbind, Abandon and extended requests are decoded at once, and so is a request that
   * finds nothing waiting (it is about to start: the common case, decoded on the quick path); the
   * others wait as bytes until they are next (request-queue.ts).
   */
  private readonly takeFrame = (frame: Buffer): boolean => {
    this.idleTimer.touch();
    const arrived = this.clock();
    this.stats.received(frame.length);
    this.opsReceived += 1;
    this.activityTime = this.server.monitor.coarseNow;
    const head = this.queue.length === 0 ? undefined : peekRequest(frame);
    if (!head || head.kind === 'unbind' || head.kind === 'abandon' || head.kind === 'extended') this.accept(decodeRequest(frame, this.decodeOptions()), arrived, frame.length);
    else this.queueFrame(head as RequestHead & { kind: AnsweredRequest['kind'] }, frame, arrived);
    return !(this.closing || this.upgrading);
  };

  /**
   * A search's filter is decoded only up to the session's cap on filter terms (filter-cap.ts):
   * past it the search is refused anyway. Not while a bind runs: it may change who is asking.
   */
  private decodeOptions(): DecodeOptions {
    const cap = this.binding ? undefined : filterCap(this.session, this.server.config.limits);
    return cap === undefined ? {} : { keepFilterTerms: cap.terms };
  }

  private onData(chunk: Buffer): void {
    try {
      this.frames.read(chunk, this.takeFrame);
      if (this.closing || this.upgrading) return;
    } catch (error) {
      if (error instanceof FrameError) {
        this.disconnect(ResultCode.protocolError, error.kind === 'tooLarge' ? 'message too large' : 'malformed message');
        return;
      }
      if (!(error instanceof ProtocolError)) throw error;
      this.disconnect(ResultCode.protocolError, `malformed request: ${error.message}`);
      return;
    }
    this.pump();
  }

  /**
   * Takes a decoded request as it arrives: Unbind and Abandon act at once (they never wait behind
   * the operations they are meant to stop); an extended request is queued or starts TLS.
   */
  private accept(request: Request, arrived: number, bytes: number): void {
    if (request.kind === 'unbind' || request.kind === 'abandon') {
      this.stats.unanswered(kindIndex(request.kind));
      this.opsCompleted += 1;
    }
    if (request.kind === 'unbind') {
      this.close();
      return;
    }
    if (request.kind === 'abandon') {
      if (!this.queue.abandon(request.abandonId)) this.session.abandon(request.abandonId);
      return;
    }
    if (!this.admissible(request.messageId, request.kind === 'bind' || isStartTls(request))) return;
    if (this.startTlsContext && isStartTls(request)) this.startTls(request, this.startTlsContext, arrived);
    else this.queue.pushRequest(request, arrived, bytes);
  }

  /** Queues a request read as bytes (decoded when next, request-queue.ts). */
  private queueFrame(head: RequestHead & { readonly kind: AnsweredRequest['kind'] }, frame: Buffer, arrived: number): void {
    if (this.admissible(head.messageId, head.kind === 'bind')) this.queue.pushFrame(head, frame, arrived);
  }

  /**
   * May a request with this message ID be queued? On the admin's reserve only a bind or StartTLS
   * (else the connection closes: false); a reused or reserved message ID ends the connection.
   */
  private admissible(messageId: number, bindOrStartTls: boolean): boolean {
    if (this.reserve.isHeld && !bindOrStartTls) {
      this.disconnect(ResultCode.busy, RESERVE_REFUSAL);
      return false;
    }
    if (messageId === 0 || this.session.isRunning(messageId) || this.queue.has(messageId)) {
      throw new ProtocolError(`message ID ${messageId} is reserved or already in use`);
    }
    return true;
  }

  /** Refused: answered like any operation, reading goes on. Accepted: answered in clear, then TLS. */
  private startTls(request: ExtendedRequest, context: SecureContext, arrived: number): void {
    const refusal = startTlsRefusal(request, this.session, this.queue.length);
    if (refusal) {
      void this.run(request, arrived, async () => refusal);
      return;
    }
    this.upgrading = true;
    const raw = this.socket;
    raw.off('data', this.onSocketData);
    raw.pause();
    // Bytes that came after the request are the client's first TLS bytes (or garbage for TLS).
    const early = this.frames.takeRest();
    // The accept may wait behind answers the client has not read: until it is written, the idle
    // timer runs on, and a client that reads nothing for WRITE_STALL_MS is cut off, as the writer
    // cuts one off (a connection held this way was never closed: review 2026-12-08).
    const stall = setTimeout(() => raw.destroy(), WRITE_STALL_MS).unref();
    this.writeAround(raw, encodeReply(request, START_TLS_ACCEPTED), (error) => {
      clearTimeout(stall);
      this.idleTimer.stop();
      if (error) raw.destroy();
      else this.continueOverTls(raw, early, context);
    });
    this.stats.initiated(EXTENDED);
    this.stats.completed(EXTENDED, START_TLS_ACCEPTED.code);
    this.opsCompleted += 1;
    logOperation(this.server.log, this.session, request, START_TLS_ACCEPTED, { waited: 0, ran: 0 });
  }

  /** A message written around the writer (StartTLS's answer, the notice of disconnection), counted as sent as the writer counts. */
  private writeAround(socket: Socket, message: Buffer, done?: (error?: Error | null) => void): void {
    this.stats.sent(message.length);
    socket.write(message, done);
  }

  /** After StartTLS the session is anonymous again, as in OpenLDAP. */
  private continueOverTls(raw: Socket, early: Buffer, context: SecureContext): void {
    if (this.closing || raw.destroyed) return;
    if (early.length > 0) raw.unshift(early);
    this.session.bindAs('', false);
    this.session.secure = true;
    this.frames.maxBytes = this.server.config.limits.maxMessageBytesAnonymous;
    this.attach(new TLSSocket(raw, { isServer: true, secureContext: context }));
    this.upgrading = false;
  }

  /**
   * Starts queued operations while there is room (on this connection: maxOutstanding by weight;
   * on the thread: ThreadLoad) and no bind is in the way; pauses reading while too much waits.
   */
  private pump(): void {
    if (this.upgrading) return;
    while (this.queue.length > 0 && !this.closing && !this.binding) {
      const next = this.nextRequest();
      if (!next || !this.roomFor(next)) break;
      const arrived = this.queue.shift();
      if (this.refusing) {
        void this.run(next, arrived, async () => SHUTTING_DOWN);
        continue;
      }
      if (next.kind === 'bind') this.binding = true;
      void this.run(next, arrived);
    }
    const full = this.queue.length > MAX_WAITING_REQUESTS || this.queue.bytes > MAX_WAITING_BYTES;
    if (full) this.socket.pause();
    else if (!this.closing) this.socket.resume();
    this.peer.watch(full && !this.closing);
  }

  /** The request next in line, decoded; undefined (and the connection closed) if it is malformed. */
  private nextRequest(): AnsweredRequest | undefined {
    try {
      return this.queue.next(this.decodeOptions());
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      this.disconnect(ResultCode.protocolError, `malformed request: ${error.message}`);
      return undefined;
    }
  }

  /** Can `next` start now? A bind waits for every operation to end; others for weight to free, here or on the thread. */
  private roomFor(next: AnsweredRequest): boolean {
    if (next.kind === 'bind') return this.session.outstanding === 0;
    const weight = weightOf(next);
    const own = this.weightInFlight;
    if (own > 0 && own + weight > this.server.config.limits.maxOutstanding) return false;
    if (this.server.load.mayStart(weight, own)) return true;
    this.server.load.waitForRoom(this.wake);
    return false;
  }

  /** Runs one operation that arrived at `arrived` (this.clock()), answers it and logs it. */
  private async run(request: AnsweredRequest, arrived: number, answer = perform): Promise<void> {
    const started = performance.now(); // always: the bind latency counted for monitoring starts here
    const weight = weightOf(request);
    this.weightInFlight += weight;
    this.server.load.started(weight);
    const signal = this.session.start(request.messageId, request.kind === 'bind');
    const context: OperationContext = { server: this.server, session: this.session, signal, send: this.sendEntry, started };
    const kind = kindIndex(request.kind);
    let answered = false;
    this.stats.initiated(kind);
    try {
      const reply = await answer(request, context);
      if (reply === undefined || signal.aborted) return;
      const keep = request.kind !== 'bind' || this.afterBind(reply);
      // Counted before it is written: a client that reads cn=Monitor after the answer finds it counted.
      answered = true;
      this.stats.completed(kind, reply.code);
      await this.writer.send(encodeReply(request, reply));
      logOperation(this.server.log, this.session, request, reply, { waited: started - arrived, ran: performance.now() - started });
      if (!keep) this.disconnect(ResultCode.busy, RESERVE_REFUSAL);
    } catch (error) {
      if (!(error instanceof Abandoned)) this.server.log.error({ err: error, conn: this.session.id }, 'cannot answer');
    } finally {
      if (!answered) this.stats.ended();
      this.opsCompleted += 1;
      this.weightInFlight -= weight;
      this.server.load.finished(weight);
      this.idleTimer.touch();
      this.session.finish(request.messageId);
      if (request.kind === 'bind') this.binding = false;
      this.pump();
    }
  }

  /**
   * A bound client may send larger messages (OpenLDAP: sockbuf_max_incoming_auth) and has the
   * longer idle timeout. A connection on the reserve stays only if the admin bound: false when it
   * must close (after its answer).
   */
  private afterBind(reply: Reply): boolean {
    const { limits } = this.server.config;
    const bound = reply.code === ResultCode.success && !this.session.anonymous;
    this.frames.maxBytes = bound ? limits.maxMessageBytesBound : limits.maxMessageBytesAnonymous;
    if (!this.reserve.afterBind(bound && this.session.isAdmin)) return false;
    this.setIdleTimeout();
    return true;
  }

  /** The idle timeout for the session as it is now (idleTimeoutMs). */
  private setIdleTimeout(): void {
    this.idleTimer.set(idleTimeoutMs(this.server.config.limits, this.session.anonymous));
  }

  private onIdle(): void {
    if (this.idle) this.disconnect(ResultCode.unavailable, 'idle timeout');
    else this.idleTimer.touch();
  }

  /** What cn=Connections shows of this connection (OpenLDAP's monitorConnection attributes). */
  describe(thread: number): ConnectionRecord {
    const executing = this.session.outstanding;
    return {
      id: this.session.id, thread, peer: `IP=${this.session.remote}`, local: `IP=${this.tcp.localAddress}:${this.tcp.localPort}`,
      listener: this.listener, boundDn: this.session.dn, normalizedDn: this.session.normalizedDn,
      opsReceived: this.opsReceived, opsExecuting: executing, opsPending: this.queue.length, opsCompleted: this.opsCompleted,
      startTime: this.startTime, activityTime: this.activityTime,
    };
  }

  /** Notice of disconnection (RFC 4511 4.4.1), then close. */
  disconnect(code: number, message: string): void {
    if (this.closing) return;
    this.server.log.info({ conn: this.session.id, code, reason: message }, 'disconnecting');
    if (!this.socket.destroyed) this.writeAround(this.socket, encodeNoticeOfDisconnection({ code, message }));
    this.close();
  }

  close(): void {
    this.closing = true;
    this.queue.clear();
    this.server.load.forget(this.wake);
    this.session.abandonAll();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  /** Called for the TCP socket and, after StartTLS, for the TLS socket around it: acts once. */
  private onClose(): void {
    if (this.ended) return;
    this.ended = true;
    this.closing = true;
    this.queue.clear();
    this.server.load.forget(this.wake);
    this.peer.watch(false);
    this.idleTimer.stop();
    this.reserve.release();
    this.server.scheduler.drop(this.session.id);
    this.session.abandonAll();
    this.server.monitor.connections.remove(this);
    this.server.log.debug({ conn: this.session.id }, 'connection closed');
    this.markClosed();
  }
}
