/**
 * The layers of src/ (docs/architecture.md), checked on every relative import of the compiled
 * tree's sources: a folder imports only folders below it (or, for the one sideways edge the design
 * allows, bench-schemes builds on authrate), so the dependencies flow one way:
 *
 *   cli -> server | authrate | bench-schemes -> policy -> ldif -> password | store | harness
 *       -> protocol -> schemes, src/errors.ts, src/native-addon.ts
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { repoRoot } from '../../helpers/paths.js';

const RANK: Readonly<Record<string, number>> = {
  cli: 0, server: 1, authrate: 1, 'bench-schemes': 1, policy: 2, ldif: 3, password: 4, store: 4, harness: 4, protocol: 5, 'errors.ts': 6, 'native-addon.ts': 6, schemes: 6,
};
const SIDEWAYS = new Set(['bench-schemes -> authrate']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The layer a repository path belongs to: its folder under src/, or schemes. */
function layerOf(path: string): string {
  const parts = relative(repoRoot, path).split('/');
  return parts[0] === 'src' ? parts[1]! : parts[0]!;
}

test('every import in src/ goes down the layers', () => {
  const wrong: string[] = [];
  for (const file of sources(join(repoRoot, 'src'))) {
    const from = layerOf(file);
    for (const match of readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^;]*?from '(\.[^']+)'/gms)) {
      const to = layerOf(normalize(join(dirname(file), match[1]!)).replace(/\.js$/, '.ts'));
      if (to === from || SIDEWAYS.has(`${from} -> ${to}`)) continue;
      if (RANK[from] === undefined || RANK[to] === undefined || RANK[to]! <= RANK[from]!) {
        wrong.push(`${relative(repoRoot, file)}: ${from} -> ${to} (${match[1]})`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});
