/**
 * Every thread's logger options: no pid/hostname, credentials redacted. A module of its own so that
 * a serving thread gets them without loading start.ts and all it imports (the PostgreSQL client
 * among them: about 3 MB of each thread's heap).
 */
import type { LoggerOptions } from 'pino';

export const LOG_OPTIONS: LoggerOptions = {
  base: undefined, redact: { paths: ['password', 'credentials', '*.password', '*.credentials'], censor: '***' },
};
