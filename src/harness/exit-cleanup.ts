/** Cleanups that run when the process exits, so a failed test or benchmark leaves no server or directory behind. */
const exitCleanups = new Set<() => void>();
let exitHookInstalled = false;

export function onExit(cleanup: () => void): void {
  if (!exitHookInstalled) {
    process.once('exit', () => exitCleanups.forEach((fn) => fn()));
    exitHookInstalled = true;
  }
  exitCleanups.add(cleanup);
}

export function cancelOnExit(cleanup: () => void): void {
  exitCleanups.delete(cleanup);
}
