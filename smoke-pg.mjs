import { startPostgres } from '/work/main/dist/src/harness/postgres.js';
const c = await startPostgres();
console.log(c.url);
process.on('SIGTERM', async () => { await c.destroy(); process.exit(0); });
setInterval(() => {}, 1000);
