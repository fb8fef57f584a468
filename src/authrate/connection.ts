/**
 * One connection of the load tools: plain TCP, LDAPS or StartTLS; one operation at a time (simple
 * binds, searches, modifies, adds; the encoding and result reading of wire.ts, framing by FrameReader),
 * and a clean UnbindRequest before close.
 */
import net from 'node:net';
import tls from 'node:tls';
import { decodeSearchEntry, FrameReader, type ClientEntry } from '../protocol/index.js';
import { errorCode, errorMessage } from '../errors.js';
import {
  SEARCH_DONE, SEARCH_ENTRY, encodeAdd, encodeModify, encodeSearch, encodeSimpleBind, encodeStartTls, encodeUnbind, readCode, readEntryDn, readMessage,
  readResult, type AddAttribute, type Replacement, type SearchSpec,
} from './wire.js';

/** The result code authrate counts when a connection cannot be made or is lost (LDAP "connect error"). */
export const CONNECT_ERROR = 91;

export interface Endpoint {
  readonly host: string;
  readonly port: number;
  readonly useSsl: boolean;
  readonly useStartTls: boolean;
  readonly trustAll: boolean;
}

/** What a search found: its result code, the entries returned, and the DNs of (up to two) of them. */
interface SearchOutcome {
  readonly code: number;
  readonly entries: number;
  readonly dns: readonly string[];
}

export class ConnectionError extends Error {
  override name = 'ConnectionError';
}

/** A certificate the client does not trust: Node's codes for it, with a hint. */
const UNTRUSTED = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

function describe(error: unknown): string {
  const code = errorCode(error);
  const message = errorMessage(error);
  if (code && UNTRUSTED.test(code)) return `${message} (${code}): the server's certificate is not trusted; add its CA with NODE_EXTRA_CA_CERTS=ca.pem, or -X to trust any`;
  return code ?? message;
}

const tlsOptions = (endpoint: Endpoint): tls.ConnectionOptions => ({
  rejectUnauthorized: !endpoint.trustAll, servername: net.isIP(endpoint.host) ? undefined : endpoint.host,
});

/** Connects (TCP, or TLS over `socket` when given); resolves once connected (TLS: handshaken). */
function connect(endpoint: Endpoint, tlsOver?: net.Socket): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(new ConnectionError(`cannot connect to ${endpoint.host}:${endpoint.port}: ${describe(error)}`));
    const address = { host: endpoint.host, port: endpoint.port };
    const socket = tlsOver
      ? tls.connect({ ...tlsOptions(endpoint), socket: tlsOver }, () => done())
      : endpoint.useSsl ? tls.connect({ ...address, ...tlsOptions(endpoint) }, () => done()) : net.connect(address, () => done());
    const done = () => {
      socket.off('error', onError);
      resolve(socket);
    };
    socket.once('error', onError);
    socket.setNoDelay(true);
  });
}

/** Sends the StartTLS extended request (message 1) and waits for its response's result code. */
function requestStartTls(socket: net.Socket): Promise<number> {
  const frames = new FrameReader({ maxBytes: 1 << 16 });
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const [frame] = frames.push(chunk);
      if (!frame) return;
      socket.off('data', onData).off('error', reject).off('close', onClose);
      resolve(readResult(frame).code);
    };
    const onClose = () => reject(new Error('the server closed the connection'));
    socket.on('data', onData).once('error', reject).once('close', onClose);
    socket.write(encodeStartTls(1));
  });
}

/** A plain connection upgraded with StartTLS (-q). */
async function connectStartTls(endpoint: Endpoint): Promise<net.Socket> {
  const plain = await connect(endpoint);
  const code = await requestStartTls(plain).catch((error: unknown) => {
    plain.destroy();
    throw new ConnectionError(`StartTLS with ${endpoint.host}:${endpoint.port} failed: ${describe(error)}`);
  });
  if (code !== 0) {
    plain.destroy();
    throw new ConnectionError(`${endpoint.host}:${endpoint.port} refused StartTLS (result code ${code})`);
  }
  return connect(endpoint, plain);
}

/** How long opening a connection (TCP, TLS, StartTLS) may take: OpenDJ's --connectTimeout default. */
const CONNECT_TIMEOUT_MS = 30_000;
/** After an Unbind, how long the server has to close its side before the socket is cut. */
const CLOSE_GRACE_MS = 1000;

/**
 * The work's outcome, or the error `late()` makes once `ms` have passed without one (what a
 * server that accepts and then answers nothing would otherwise leave waiting for ever).
 */
export async function within<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** A connection opened (with StartTLS under -q), or ConnectionError; one not complete after CONNECT_TIMEOUT_MS fails. */
async function openSocket(endpoint: Endpoint): Promise<net.Socket> {
  const opening = endpoint.useStartTls ? connectStartTls(endpoint) : connect(endpoint);
  try {
    return await within(opening, CONNECT_TIMEOUT_MS, () => new ConnectionError(`${endpoint.host}:${endpoint.port} did not complete the connection within ${CONNECT_TIMEOUT_MS / 1000} s`));
  } catch (error) {
    void opening.then((socket) => socket.destroy(), () => {});
    throw error;
  }
}

interface Pending {
  readonly messageId: number;
  /** Takes one response of this operation (its tag, where its content starts); true when it was the last. */
  readonly take: (frame: Buffer, tag: number, content: number) => boolean;
  readonly reject: (error: Error) => void;
}

export class LdapConnection {
  readonly #socket: net.Socket;
  /** Up to 64 MiB a message: a search may return large entries (1 MiB counted them as connection errors; review 2026-12-08). */
  readonly #frames = new FrameReader({ maxBytes: 64 << 20 });
  /** Message 1 may have been the StartTLS request. */
  #messageId = 1;
  #pending: Pending | undefined;
  #closed = false;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', (error) => this.#lost(`connection error: ${describe(error)}`));
    socket.on('close', () => this.#lost('connection closed by the server'));
  }

  static async open(endpoint: Endpoint): Promise<LdapConnection> {
    return new LdapConnection(await openSocket(endpoint));
  }

  /** Sends a simple bind and resolves with its result code; rejects with ConnectionError if the connection fails. */
  bind(dn: string, password: Buffer): Promise<number> {
    return this.#result((messageId) => encodeSimpleBind(messageId, dn, password));
  }

  /** Runs a search; resolves with its result code, the entries returned and the first two entries' DNs (enough to tell "exactly one"). */
  search(spec: SearchSpec): Promise<SearchOutcome> {
    const dns: string[] = [];
    let entries = 0;
    return this.#send((messageId) => encodeSearch(messageId, spec), (resolve) => (frame, tag, content) => {
      if (tag === SEARCH_ENTRY && ++entries <= 2) dns.push(readEntryDn(frame, content));
      if (tag !== SEARCH_DONE) return false;
      resolve({ code: readCode(frame, content), entries, dns });
      return true;
    });
  }

  /** Replaces attributes' values of one entry; resolves with the result code. */
  modify(dn: string, replacements: readonly Replacement[]): Promise<number> {
    return this.#result((messageId) => encodeModify(messageId, dn, replacements));
  }

  /** Adds an entry; resolves with the result code. */
  add(dn: string, attributes: readonly AddAttribute[]): Promise<number> {
    return this.#result((messageId) => encodeAdd(messageId, dn, attributes));
  }

  /** Runs a search and resolves with its result code and every entry it returned, attributes included. */
  searchEntries(spec: SearchSpec): Promise<{ readonly code: number; readonly entries: readonly ClientEntry[] }> {
    const entries: ClientEntry[] = [];
    return this.#send((messageId) => encodeSearch(messageId, spec), (resolve) => (frame, tag, content) => {
      if (tag === SEARCH_ENTRY) entries.push(decodeSearchEntry(frame));
      if (tag !== SEARCH_DONE) return false;
      resolve({ code: readCode(frame, content), entries });
      return true;
    });
  }

  /** Sends a request answered by one LDAPResult-shaped response; resolves with its result code. */
  #result(encode: (messageId: number) => Buffer): Promise<number> {
    return this.#send(encode, (resolve) => (frame, _tag, content) => {
      resolve(readCode(frame, content));
      return true;
    });
  }

  #send<T>(encode: (messageId: number) => Buffer, taker: (resolve: (value: T) => void) => Pending['take']): Promise<T> {
    if (this.#closed) return Promise.reject(new ConnectionError('connection closed'));
    this.#messageId += 1;
    const messageId = this.#messageId;
    return new Promise((resolve, reject) => {
      this.#pending = { messageId, take: taker(resolve), reject };
      this.#socket.write(encode(messageId));
    });
  }

  /** Sends an UnbindRequest and closes (the server may close first; either is fine). */
  unbindAndClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#messageId += 1;
    // Half-closed, the socket would wait for the server's side for ever (one that never answers
    // kept the tool from exiting): it no longer keeps the process alive, and is cut after a grace.
    this.#socket.end(encodeUnbind(this.#messageId));
    this.#socket.unref();
    const socket = this.#socket;
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  destroy(): void {
    this.#closed = true;
    this.#socket.destroy();
  }

  #receive(chunk: Buffer): void {
    try {
      for (const frame of this.#frames.push(chunk)) {
        const { messageId, tag, content } = readMessage(frame);
        const pending = this.#pending;
        if (pending && messageId === pending.messageId && pending.take(frame, tag, content)) this.#pending = undefined;
      }
    } catch (error) {
      this.#lost(`bad response: ${describe(error)}`);
      this.#socket.destroy();
    }
  }

  #lost(why: string): void {
    this.#closed = true;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(new ConnectionError(why));
  }
}
