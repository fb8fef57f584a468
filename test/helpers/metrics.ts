/**
 * Reading a real server's /metrics (serve --metrics-port 0): the port from its listening log
 * line, a scrape, and the samples of one metric family.
 */
import assert from 'node:assert/strict';
import type { LeveldapServer } from './leveldap-server.js';

/** The samples of one metric family in a Prometheus text scrape: labels (as text) -> value. */
export function samples(text: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (match?.[1] === name) found.set(match[2] ?? '', Number(match[3]));
  }
  return found;
}

export const sample = (text: string, name: string, labels = ''): number | undefined => samples(text, name).get(labels);

export async function scrape(port: number, path = '/metrics'): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, text: await response.text() };
}

/** The metrics port a server started with `--metrics-port 0` logged. */
export function metricsPort(server: LeveldapServer): number {
  const line = server.logs().map((text) => JSON.parse(text) as { msg?: string; metricsPort?: number }).find((record) => record.msg === 'leveldap is listening');
  assert.ok(line?.metricsPort, 'the listening line carries metricsPort');
  return line.metricsPort;
}
