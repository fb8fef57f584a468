/**
 * A serving thread of `serve --threads` (a worker_threads entry point): its own event loop,
 * handle of the database and listeners on the shared sockets, the same handlers. Its log
 * lines go to the first thread, which writes them with its own, so lines never interleave.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import { registryFromRecipe } from '../../password/index.js';
import { buildSchema, DirectoryStore, installSchema } from '../../store/index.js';
import { buildContext, type ContextSeed } from '../build-context.js';
import { slotOwner } from './supervisor.js';
import { LOG_OPTIONS } from '../log-options.js';
import { listen } from '../net/listener.js';
import type { ListenThread, StopThread, ThreadReport, ThreadSetup } from './messages.js';

const port = parentPort!;
const report = (message: ThreadReport) => port.postMessage(message);

/** Log lines gathered during a turn of the event loop, posted together. */
class LogRelay {
  private lines: string[] = [];

  write(line: string): void {
    if (this.lines.length === 0) setImmediate(() => this.flush());
    this.lines.push(line);
  }

  flush(): void {
    if (this.lines.length === 0) return;
    report({ log: this.lines.join('') });
    this.lines = [];
  }
}

/** Buffers become Uint8Arrays on their way here; TLS wants Buffers. */
function reviveSeed(seed: ContextSeed): ContextSeed {
  const tls = seed.config.tls;
  if (!tls) return seed;
  return { ...seed, config: { ...seed.config, tls: { ...tls, cert: Buffer.from(tls.cert), key: Buffer.from(tls.key) } } };
}

async function serve(setup: ThreadSetup, relay: LogRelay, log: Logger): Promise<void> {
  installSchema(buildSchema(setup.seed.schemaFiles)); // the same schema as the main thread's, before any entry is read
  const store = await DirectoryStore.open(setup.dataDir, {
    createIfMissing: false, cacheMb: setup.cacheMb, entryCacheBytes: setup.entryCacheBytes, log, tables: setup.tables,
    threads: { sharedLocks: setup.sharedLocks, writeGate: setup.writeGate, owner: slotOwner(setup.thread) },
  });
  const registry = await registryFromRecipe(setup.recipe, log);
  const context = buildContext(reviveSeed(setup.seed), store, registry, log, setup.counters, setup.thread);
  const sockets = new Promise<ListenThread>((resolve) => port.once('message', resolve));
  report({ prepared: true });
  const server = await listen(context, {
    sockets: (await sockets).listen, thread: setup.thread, threads: setup.threads, addressCounts: setup.addressCounts,
  });
  port.once('message', ({ stop }: StopThread) => {
    void (async () => {
      try {
        await server.stop(stop.graceMillis);
        await context.policy.background.drain();
        context.monitor.close();
      } catch (error) {
        log.error({ err: error }, 'stopping this thread failed');
      } finally {
        await store.close().catch((error: unknown) => log.error({ err: error }, 'closing the database failed'));
        relay.flush();
        report({ stopped: true });
        port.close();
      }
    })();
  });
  report({ ready: true });
}

const setup = workerData as ThreadSetup;
const relay = new LogRelay();
const log = pino({ ...LOG_OPTIONS, level: setup.logLevel }, relay).child({ thread: setup.thread });
await serve(setup, relay, log);
