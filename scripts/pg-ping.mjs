// Exits 0 when the PostgreSQL server at the URL given answers `select 1`, else 1 (saying why, without the password).
import pg from 'pg';

const url = process.argv[2];
const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
try {
  await client.connect();
  await client.query('select 1');
  await client.end();
} catch (error) {
  console.error(`  (${url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@')}: ${error.message})`);
  process.exit(1);
}
