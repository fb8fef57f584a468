/**
 * The servers of a side-by-side benchmark (bench-search, bench-modify): slapd as a careful operator
 * runs it here (slapdSettings: threads for the cores, loglevel 0) with leveldap's default indexes
 * as `eq` lines and an mdb map that holds a million users, this checkout's leveldap, and each other built checkout's (BUILDS), all on the
 * same LDIF, each with the DN and password to bind as its admin. A failure to start one stops
 * those started.
 */
import { join } from 'node:path';
import { BENCH_ADMIN, slapdSettings, SLAPD_INDEX_LINES, SLAPD_LARGE_MAP_BYTES, startLeveldap, startSlapd, type BenchServer } from '../src/bench-schemes/servers.js';

export interface Served {
  readonly label: string;
  readonly server: BenchServer;
  readonly bindDn: string;
  readonly password: string;
}

/** slapd, then leveldap (`serveArgs` to serve), then one leveldap per build, in `dir`. */
export async function startSideBySide(ldif: string, dir: string, serveArgs: readonly string[], builds: readonly string[]): Promise<Served[]> {
  const served: Served[] = [];
  const admin = { bindDn: BENCH_ADMIN.dn, password: BENCH_ADMIN.password };
  try {
    const slapd = await startSlapd(ldif, { ...slapdSettings(), databaseLines: SLAPD_INDEX_LINES, maxSize: SLAPD_LARGE_MAP_BYTES });
    served.push({ label: 'slapd', server: slapd, bindDn: slapd.rootDn, password: slapd.rootPassword });
    served.push({ label: 'leveldap', server: await startLeveldap(ldif, join(dir, 'leveldap'), [], serveArgs), ...admin });
    for (const [index, build] of builds.entries()) {
      const server = await startLeveldap(ldif, join(dir, `build-${index}`), [], serveArgs, join(build, 'bin', 'leveldap.js'));
      served.push({ label: `leveldap (${build})`, server, ...admin });
    }
    return served;
  } catch (error) {
    await Promise.all(served.map((entry) => entry.server.stop()));
    throw error;
  }
}
