/**
 * What lockout's full map costs (docs/password-limits.md): failing binds per second over many
 * accounts, one wrong bind each, with room in the map for every account (the default 100,000)
 * and with a map of 100 (LEVELDAP_LOCKOUT_TRACKED_ACCOUNTS), where every failure stores another
 * account's failures in its entry. Two passes each (the second: entries already hold stored
 * failures, which come back into memory). Users on SSHA512, so the write shows.
 * Run: npm run build && node dist/bench/bench-lockout-eviction.js     (USERS, CONNECTIONS)
 */
import { startLeveldap, type LeveldapServer } from '../test/helpers/leveldap-server.js';
import { RawConnection } from '../test/helpers/ldap-client.js';
import { bindRequest, exchange } from '../test/helpers/ldap-requests.js';

const USERS = Number(process.env.USERS ?? 10_000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const PEOPLE = 'ou=People,dc=example,dc=com';

/** Every account fails once; returns binds per second. */
async function failEveryAccount(server: LeveldapServer): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    const connection = await RawConnection.open(server.port);
    for (let id = 1; next < USERS; id++) {
      const response = await exchange(connection, id, bindRequest(id, `uid=user.${next++},${PEOPLE}`, 'wrong'));
      if (response.code !== 49) throw new Error(`a wrong bind answered ${response.code}`);
    }
    connection.socket.destroy();
  }));
  return USERS / ((performance.now() - started) / 1000);
}

for (const tracked of [undefined, '100']) {
  const env: Record<string, string> = tracked === undefined ? {} : { LEVELDAP_LOCKOUT_TRACKED_ACCOUNTS: tracked };
  const server = await startLeveldap({ users: USERS, args: ['--threads', '1', '--max-failures', '5'], env });
  try {
    const rates = [await failEveryAccount(server), await failEveryAccount(server)];
    console.log(`map ${tracked ?? 'default (100,000)'}: ${rates.map((rate) => rate.toFixed(0)).join(', ')} failing binds/s (${USERS} accounts, ${CONNECTIONS} connections)`);
  } finally {
    await server.stop();
  }
}
