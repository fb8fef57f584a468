/**
 * One authrate connection: plain TCP or TLS, simple binds one at a time (the BindRequest and the
 * result reading of bind-wire.ts, framing by FrameReader), and a clean UnbindRequest before close.
 */
import net from 'node:net';
import tls from 'node:tls';
import { FrameReader } from '../server/protocol/index.js';
import { encodeSimpleBind, encodeUnbind, readResult } from './bind-wire.js';

/** The result code authrate counts when a connection cannot be made or is lost (LDAP "connect error"). */
export const CONNECT_ERROR = 91;

export interface Endpoint {
  readonly host: string;
  readonly port: number;
  readonly useSsl: boolean;
  readonly trustAll: boolean;
}

export class ConnectionError extends Error {
  override name = 'ConnectionError';
}

function describe(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? String(error);
}

function openSocket(endpoint: Endpoint): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(new ConnectionError(`cannot connect to ${endpoint.host}:${endpoint.port}: ${describe(error)}`));
    const socket = endpoint.useSsl
      ? tls.connect({ host: endpoint.host, port: endpoint.port, rejectUnauthorized: !endpoint.trustAll, servername: net.isIP(endpoint.host) ? undefined : endpoint.host }, () => done())
      : net.connect({ host: endpoint.host, port: endpoint.port }, () => done());
    const done = () => {
      socket.off('error', onError);
      resolve(socket);
    };
    socket.once('error', onError);
    socket.setNoDelay(true);
  });
}

interface Pending {
  readonly messageId: number;
  readonly resolve: (code: number) => void;
  readonly reject: (error: Error) => void;
}

export class BindConnection {
  readonly #socket: net.Socket;
  readonly #frames = new FrameReader({ maxBytes: 1 << 20 });
  #messageId = 0;
  #pending: Pending | undefined;
  #closed = false;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', (error) => this.#lost(`connection error: ${describe(error)}`));
    socket.on('close', () => this.#lost('connection closed by the server'));
  }

  static async open(endpoint: Endpoint): Promise<BindConnection> {
    return new BindConnection(await openSocket(endpoint));
  }

  /** Sends a simple bind and resolves with its result code; rejects with ConnectionError if the connection fails. */
  bind(dn: string, password: Buffer): Promise<number> {
    if (this.#closed) return Promise.reject(new ConnectionError('connection closed'));
    this.#messageId += 1;
    const messageId = this.#messageId;
    return new Promise((resolve, reject) => {
      this.#pending = { messageId, resolve, reject };
      this.#socket.write(encodeSimpleBind(messageId, dn, password));
    });
  }

  /** Sends an UnbindRequest and closes (the server may close first; either is fine). */
  unbindAndClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#messageId += 1;
    this.#socket.end(encodeUnbind(this.#messageId));
  }

  destroy(): void {
    this.#closed = true;
    this.#socket.destroy();
  }

  #receive(chunk: Buffer): void {
    try {
      for (const frame of this.#frames.push(chunk)) {
        const { messageId, code } = readResult(frame);
        const pending = this.#pending;
        if (pending && messageId === pending.messageId) {
          this.#pending = undefined;
          pending.resolve(code);
        }
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
