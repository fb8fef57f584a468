/** The `authrate` bind load tool. Not built yet (issue 5): it says so and exits 1. */
export function main(): void {
  process.stderr.write('authrate: not implemented yet; it lands with issue 5 (see README)\n');
  process.exitCode = 1;
}
