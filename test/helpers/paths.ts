/** Paths the tests need, from the compiled location dist/test/helpers/. */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const fixturePath = (...parts: string[]): string => join(repoRoot, 'test', 'fixtures', ...parts);
export const leveldapBin = join(repoRoot, 'bin', 'leveldap.js');
