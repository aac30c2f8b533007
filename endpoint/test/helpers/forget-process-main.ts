/**
 * A process that erases a user and stops dead in the middle: argv[2] the database, argv[3] the bot,
 * argv[4] the user. After the first page of the bot's records is rebuilt, inside the erasure's
 * transaction, it prints `read N` and blocks its thread (so the parent's kill -9 lands mid-transaction);
 * with argv[5] `through`, it erases to the end and prints `erased N`.
 */
import { openStore } from '../../src/store/open.js';

const [database, bot, userId, mode] = process.argv.slice(2);
const { store } = await openStore({ database, log: () => undefined });
const erasure = await store.forgetUser({ bot, userId, by: 'crash-test' }, (read) => {
  process.stdout.write(`read ${read}\n`);
  if (mode !== 'through') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
});
process.stdout.write(`erased ${erasure.records}\n`);
await store.close();
