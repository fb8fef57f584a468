/** What every operation handler is given. */
import type { Logger } from 'pino';
import type { SchemeRegistry } from '../password/index.js';
import type { DirectoryStore, Entry } from '../store/index.js';
import type { ServerConfig } from './config.js';
import type { BindNames } from './bind-names.js';
import type { Counters } from './threads/counters.js';
import type { PolicyRuntime } from '../policy/runtime.js';
import type { Control, Result } from '../protocol/types.js';
import type { Scheduler } from './threads/scheduler.js';
import type { ThreadLoad } from './threads/load.js';
import type { OperationSignal, Session } from './net/session.js';
import type { ThreadMonitor } from './monitor/thread-monitor.js';

export interface ServerContext {
  readonly store: DirectoryStore;
  readonly registry: SchemeRegistry;
  readonly config: ServerConfig;
  /** The admin DN, normalized, and its password hash. */
  readonly admin: { readonly normalizedDn: string; readonly stored: string };
  /** Bind DNs that bound, parsed (this thread's cache). */
  readonly bindNames: BindNames;
  /** The scheme written passwords are hashed with (--default-scheme). */
  readonly defaultScheme: string;
  /** The password policy (serve's flags and --config) and its state: lockout, bind cache, re-encoding. */
  readonly policy: PolicyRuntime;
  readonly log: Logger;
  readonly vendorVersion: string;
  /** Counts shared by every serving thread (connections per listener, re-encodings). */
  readonly counters: Counters;
  /** Turns of this thread for long work (search evaluation). */
  readonly scheduler: Scheduler;
  /** The weight of the operations in flight on this thread, under its budget. */
  readonly load: ThreadLoad;
  /** The subschema entry (cn=Subschema), built once from the schema in force. */
  readonly subschema: Entry;
  /** This thread's counters, open connections and the channel to the other threads (cn=Monitor). */
  readonly monitor: ThreadMonitor;
}

export interface OperationContext {
  readonly server: ServerContext;
  readonly session: Session;
  /** Fires when the operation is abandoned or the connection closes. */
  readonly signal: OperationSignal;
  /**
   * Sends one message (e.g. a search entry): undefined when the socket took it, else a promise to
   * wait on while the socket is full (a search's thousands of entries need not cost a promise each).
   */
  send(message: Buffer): Promise<void> | undefined;
  /** When the operation started (performance.now()): its latency for monitoring. */
  readonly started: number;
}

/** The final response of an operation; the dispatcher encodes it for the operation's type. */
export interface Reply extends Result {
  readonly controls?: readonly Control[];
  readonly responseName?: string;
  readonly responseValue?: Buffer;
  /** For the access log: the entries a search returned. */
  readonly entries?: number;
  /** For the access log: the scheme of the stored value a successful bind matched... */
  readonly scheme?: string;
  /** ...and whether the verified-bind cache answered for it. */
  readonly cached?: boolean;
}
