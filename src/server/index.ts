export { startServer, createLogger, type StartOptions, type Started } from './start.js';
export { DEFAULT_LIMITS, type Limits, type ServerConfig } from './config.js';
