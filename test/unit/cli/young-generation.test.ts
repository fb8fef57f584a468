/**
 * The young generation `serve` starts its main thread with (bin/young-generation.js, used by
 * bin/leveldap.js before V8 starts): 1 MiB of semi-space for a server, 8 for a node of a
 * PostgreSQL store, whether --store is on the command line (either form) or in the --config file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { repoRoot } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/store.js';

const { semiSpaceMb, NODE_SEMI_SPACE_MB, SERVER_SEMI_SPACE_MB } = createRequire(import.meta.url)(join(repoRoot, 'bin', 'young-generation.js')) as {
  semiSpaceMb(args: readonly string[]): number;
  NODE_SEMI_SPACE_MB: number;
  SERVER_SEMI_SPACE_MB: number;
};

test('a server\'s main thread gets the small young generation, a node\'s the larger one', async () => {
  assert.deepEqual([SERVER_SEMI_SPACE_MB, NODE_SEMI_SPACE_MB], [1, 8]);
  assert.equal(semiSpaceMb(['--data', 'db', '--port', '1389']), 1);
  assert.equal(semiSpaceMb(['--data', 'db', '--store', 'postgres://u@/db?host=/run/postgresql']), 8);
  assert.equal(semiSpaceMb(['--store=postgres://u@/db', '--data', 'db']), 8);
  const dir = await tempDir('leveldap-young-');
  try {
    const node = join(dir.path, 'node.json');
    const server = join(dir.path, 'server.json');
    const broken = join(dir.path, 'broken.json');
    await writeFile(node, JSON.stringify({ store: 'postgres://u@/db', nodeName: 'a' }));
    await writeFile(server, JSON.stringify({ maxFailures: 5 }));
    await writeFile(broken, '{ not json');
    assert.equal(semiSpaceMb(['--config', node]), 8);
    assert.equal(semiSpaceMb([`--config=${node}`]), 8);
    assert.equal(semiSpaceMb(['--config', server]), 1);
    assert.equal(semiSpaceMb(['--config', broken]), 1, 'serve itself reports the broken file');
    assert.equal(semiSpaceMb(['--config', join(dir.path, 'missing.json')]), 1);
  } finally {
    await dir.remove();
  }
});
