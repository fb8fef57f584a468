/** PostgreSQL log sequence numbers ('16/B374D848', either half in hex) as comparable bigints. */

export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  if (high === undefined || low === undefined || !/^[0-9A-Fa-f]+$/.test(high) || !/^[0-9A-Fa-f]+$/.test(low)) {
    throw new Error(`not a log sequence number: ${text}`);
  }
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
