/**
 * Child process for the durability test: adds entries one at a time with the store's default
 * (synced) writes and prints "ack N" after each acknowledged add, until it is killed.
 * Usage: node crash-writer.js DIR
 */
import { DirectoryStore } from '../../src/store/index.js';
import { BASE, PEOPLE, person } from './store.js';

const store = await DirectoryStore.open(process.argv[2]!);
await store.add(BASE, { allowNewSuffix: true });
await store.add(PEOPLE);
for (let n = 0; ; n += 1) {
  await store.add(person(n));
  process.stdout.write(`ack ${n}\n`);
}
