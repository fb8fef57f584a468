export { startServer, createLogger, DEFAULT_THREADS_MAX, type StartOptions, type Started } from './start.js';
export { DEFAULT_LIMITS, type Limits, type ServerConfig } from './config.js';
export { MONITOR_ACCESS_CHOICES, type MonitorAccess } from './access.js';
export type { MetricsOptions } from './metrics/http.js';
export { FILL_WHEN, type FillWhen } from './password-fill.js';
