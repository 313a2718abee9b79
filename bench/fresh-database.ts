/** A PostgreSQL database of its own for one bench run, created on the admin server and dropped afterwards. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface FreshDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates `<prefix>_<random hex>` on the server of `adminUrl`; `drop` removes it, connections and all. */
export async function freshDatabase(adminUrl: string, prefix = 'svc_bench'): Promise<FreshDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => adminQuery(adminUrl, `drop database if exists ${name} with (force)`) };
}
