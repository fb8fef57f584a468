/**
 * No module of src/ turns on async hooks (AsyncLocalStorage, async_hooks.createHook): in Node 20,
 * once one is used, a hook runs on every promise the process makes, and every operation pays
 * for it. Measured here: a loop of 2,000,000 awaited promises took 191 ms, and 615 ms after one
 * AsyncLocalStorage.run. The entry locks carried their holder in one for a while, so the first
 * write of a server's life made every bind after it slower (a node of a PostgreSQL store spent
 * about 20% more CPU per SSHA512 bind than a LevelDB-only server, bench-scale-out).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../../helpers/paths.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

test('no module of src/ or schemes/ uses AsyncLocalStorage or async_hooks', () => {
  const users = [...sources(join(repoRoot, 'src')), ...sources(join(repoRoot, 'schemes'))]
    .filter((file) => /\bnew AsyncLocalStorage\b|from 'node:async_hooks'|require\('(node:)?async_hooks'\)|\bcreateHook\(/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(repoRoot, file));
  assert.deepEqual(users, []);
});
