/**
 * Worker thread for test/unit/schemes/nettle-pbkdf2.test.ts: loads schemes/kdf.js (and so the nettle
 * addon) in its own context, derives workerData's vector through the addon and through
 * pbkdf2Async, and posts the keys (hex) with the backends it chose.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { nettleAddon, nettleLoadError, nettlePbkdf2Async, pbkdf2Async, pbkdf2Backends } from '../../schemes/kdf.js';
import type { Pbkdf2Vector } from './pbkdf2-vectors.js';

const { p, s, c, dk } = workerData as Pbkdf2Vector;
const length = dk.length / 2;
const direct = nettleAddon ? (await nettlePbkdf2Async('sha256', Buffer.from(p), Buffer.from(s), c, length)).toString('hex') : undefined;
const chosen = (await pbkdf2Async('sha256', Buffer.from(p), Buffer.from(s), c, length)).toString('hex');
parentPort!.postMessage({ direct, chosen, backends: pbkdf2Backends(), loadError: nettleLoadError });
