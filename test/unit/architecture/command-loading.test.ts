/**
 * What a command loads before it runs (src/cli/main.ts loads only the named command's module):
 * the static imports reachable from each offline command's module, read from src/, must not
 * include the server, PostgreSQL's client or the metrics and logging packages serve needs.
 * Loading them all took about 0.6 s of every command's start, 0.2 s more than import-ldif needs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { repoRoot } from '../../helpers/paths.js';

const OFFLINE_COMMANDS = ['import-ldif', 'export-ldif', 'make-ldif', 'schemes', 'encode-password'];
/** The server's settings and their defaults (the limits a --config file may hold), and how a PostgreSQL URL is told apart: plain data. */
const ALLOWED = new Set(['src/server/config.ts', 'src/store/postgres/url.ts']);
const SERVE_ONLY = ['pg', 'pg-logical-replication', 'pg-copy-streams', 'prom-client', 'pino', '@opentelemetry/api'];

/** Every module reachable through static imports from `start`: src/ files by path, packages by name. */
function reachable(start: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set([start]);
  const packages = new Set<string>();
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(/^(?:import|export)(?!\s+type\b)[^;]*?from '([^']+)'/gms)) {
      const spec = match[1]!;
      if (spec.startsWith('.')) files.add(normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts'));
      else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return { files, packages };
}

for (const command of OFFLINE_COMMANDS) {
  test(`${command} does not load the server, PostgreSQL's client or serve's packages`, () => {
    const { files, packages } = reachable(join(repoRoot, 'src', 'cli', 'commands', `${command}.ts`));
    const server = [...files].map((file) => relative(repoRoot, file)).filter((file) => !ALLOWED.has(file) && (file.startsWith('src/server/') || file.startsWith('src/store/postgres/')));
    assert.deepEqual(server, []);
    assert.deepEqual(SERVE_ONLY.filter((name) => packages.has(name)), []);
  });
}

test('serve and nodes do load them (the check above can fail)', () => {
  assert.ok(reachable(join(repoRoot, 'src', 'cli', 'commands', 'serve.ts')).packages.has('prom-client'));
  assert.ok(reachable(join(repoRoot, 'src', 'cli', 'commands', 'nodes.ts')).packages.has('pg'));
});
