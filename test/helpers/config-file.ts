/** A --config file for a test: the settings written as JSON in a temporary folder, removed after the body. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function withConfig(settings: unknown, body: (file: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-config-'));
  try {
    const file = join(dir, 'config.json');
    await writeFile(file, JSON.stringify(settings));
    await body(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
