/** The --config file's monitoring keys (beside the password policy's): one name per `serve` flag of monitoring.ts. */
export const MONITORING_KEYS = ['monitorAccess', 'metricsPort', 'metricsHost'] as const;
export type MonitoringKey = (typeof MONITORING_KEYS)[number];
