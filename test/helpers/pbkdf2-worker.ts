/**
 * Worker thread for test/unit/schemes/pbkdf2-addon.test.ts: loads schemes/kdf.js (and so the PBKDF2
 * addon) in its own context, derives workerData's vector through the addon and through
 * pbkdf2Async, and posts the keys (hex) with the backends it chose.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { addonPbkdf2Async, pbkdf2Addon, pbkdf2AddonError, pbkdf2Async, pbkdf2Backends } from '../../schemes/kdf.js';
import type { Pbkdf2Vector } from './pbkdf2-vectors.js';

const { p, s, c, dk } = workerData as Pbkdf2Vector;
const length = dk.length / 2;
const direct = pbkdf2Addon ? (await addonPbkdf2Async('sha256', Buffer.from(p), Buffer.from(s), c, length)).toString('hex') : undefined;
const chosen = (await pbkdf2Async('sha256', Buffer.from(p), Buffer.from(s), c, length)).toString('hex');
parentPort!.postMessage({ direct, chosen, backends: pbkdf2Backends(), loadError: pbkdf2AddonError });
