/**
 * The yescrypt hashes test/unit/schemes/crypt.test.ts compares between this process (regions kept
 * between hashes, native/xcrypt/region-pool.h) and a child with LEVELDAP_XCRYPT_KEEP_REGIONS=0:
 * three costs (8, 16 and 32 MiB), four passwords one at a time, then two passwords each at once.
 * Run as a script, it prints them as JSON.
 */
import { argv } from 'node:process';
import { fileURLToPath } from 'node:url';
import { cryptAsync } from '../../schemes/crypt.js';

const SETTINGS = ['$y$j9T$F5Jx5fExrKuPp53xLKQ..1', '$y$j8T$PKbkrqfAB9L9YbReRPB3s1', '$y$jAT$D9DRpKs8pJH4u8bm2ecN4.'];
const PASSWORDS = ['password', '', 'p\u00e4ssw\u00f6rd', 'x'.repeat(200)];

export async function yescryptHashes(): Promise<string[]> {
  const hashes: string[] = [];
  for (const setting of SETTINGS) for (const password of PASSWORDS) hashes.push(await cryptAsync(Buffer.from(password), setting));
  const atOnce = SETTINGS.flatMap((setting) => ['a', 'b'].map((password) => cryptAsync(Buffer.from(password), setting)));
  return [...hashes, ...(await Promise.all(atOnce))];
}

if (argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await yescryptHashes()));
