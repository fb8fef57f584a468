/**
 * A small tmpfs for disk-full tests: mounted in a fresh temporary directory (root only), filled
 * with a file until the kernel answers ENOSPC, freed again, and unmounted when the test ends or,
 * should it die first, when the test process exits.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cancelOnExit, onExit } from '../../src/harness/exit-cleanup.js';
import { findProgram } from '../../src/harness/slapd.js';

export interface Tmpfs {
  readonly path: string;
  /** Writes a file until the file system is full; resolves with the bytes written. */
  fill(): number;
  /** Removes what fill() wrote. */
  free(): void;
  /** Unmounts and removes the mount point (lazily if something still holds it). Safe to call twice. */
  unmount(): Promise<void>;
}

/** Why tmpfs tests cannot run here (not root, no mount, mounting refused), or false when they can. */
export function tmpfsUnavailable(): string | false {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root: run the tests as root to check the disk-full behaviour';
  if (findProgram('mount') === undefined || findProgram('umount') === undefined) return 'mount/umount not found';
  const probe = mkdtempSync(join(tmpdir(), 'leveldap-tmpfs-probe-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { encoding: 'utf8' });
  unmountNow(probe);
  return mounted.status === 0 ? false : `mount -t tmpfs is refused here: ${mounted.stderr.trim()}`;
}

function unmountNow(path: string): void {
  spawnSync('umount', [path], { stdio: 'ignore' });
  if (spawnSync('mountpoint', ['-q', path]).status === 0) spawnSync('umount', ['-l', path], { stdio: 'ignore' });
  rmSync(path, { recursive: true, force: true });
}

export async function mountTmpfs(sizeMb: number): Promise<Tmpfs> {
  const path = await mkdtemp(join(tmpdir(), 'leveldap-tmpfs-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', path], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    await rm(path, { recursive: true, force: true });
    throw new Error(`mount -t tmpfs failed: ${mounted.stderr}`);
  }
  const cleanup = () => unmountNow(path);
  onExit(cleanup);
  const filler = join(path, 'filler');
  let unmounted = false;
  return {
    path,
    fill() {
      const fd = openSync(filler, 'a');
      let written = 0;
      try {
        for (const size of [1 << 20, 1 << 12, 1]) {
          const chunk = Buffer.alloc(size, 0x61);
          try {
            for (;;) written += writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        closeSync(fd);
      }
      return written;
    },
    free() {
      rmSync(filler, { force: true });
    },
    async unmount() {
      if (unmounted) return;
      unmounted = true;
      cancelOnExit(cleanup);
      cleanup();
    },
  };
}
