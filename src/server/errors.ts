import { errorCode } from '../errors.js';

/** The operation was abandoned (or its connection closed): no response is sent. */
export class Abandoned extends Error {
  override name = 'Abandoned';
}

/** Why a port cannot be listened on, in the words an operator acts on. */
const LISTEN_REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied (a port below 1024 needs root or CAP_NET_BIND_SERVICE)',
  EADDRNOTAVAIL: 'no interface of this machine has that address',
  ENOTFOUND: 'no such host (the name does not resolve)',
  EAI_AGAIN: 'the name could not be resolved now (DNS did not answer)',
};

/** The server cannot listen where it was told to: the operator's to fix, said in one line. */
export class ListenError extends Error {
  override name = 'ListenError';

  /** The error for a failed listen on host:port, or undefined when it is not one an operator can act on. */
  static of(error: unknown, host: string, port: number): ListenError | undefined {
    const code = errorCode(error);
    const reason = code === undefined ? undefined : LISTEN_REASONS[code];
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    return reason === undefined ? undefined : new ListenError(`cannot listen on ${address}: ${reason}`);
  }
}
