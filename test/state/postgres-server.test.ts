import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabase,
  type PostgresServer,
  postgresTests,
  psql,
  startPostgresServer,
} from '../helpers/postgres-server.js';

/** psql -c 'select 1' exactly as a person would type it; resolves with the exit code and output. */
function selectOne(url: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const bin = postgresTests.bin as string;
  return new Promise((resolve) => {
    execFile(
      join(bin, 'psql'),
      ['-X', '-A', '-t', '-d', url, '-c', 'select 1'],
      { encoding: 'utf8', env: { ...process.env, PGCONNECT_TIMEOUT: '2' } },
      (error, stdout, stderr) =>
        resolve({ code: typeof error?.code === 'number' ? error.code : error ? -1 : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(postgresTests.skip)('the throwaway PostgreSQL server for tests', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(() => server?.destroy());

  it('starts on a loopback port and answers psql -c "select 1"', async () => {
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    expect(statSync(join(server.dir, 'data', 'PG_VERSION')).isFile()).toBe(true);
    expect(await selectOne(server.url)).toEqual({ code: 0, stdout: '1\n', stderr: '' });
    expect(await psql(server.url, 'select current_user')).toBe('postgres');
    expect(await psql(server.url, 'show fsync')).toBe('off');
    expect(
      await psql(
        server.url,
        "select pg_encoding_to_char(encoding) from pg_database where datname = 'postgres'",
      ),
    ).toBe('UTF8');
  });

  it('creates a fresh, usable database each time, under a name of its own', async () => {
    const url = await createDatabase(server, 'orders_test');
    const name = new URL(url).pathname.slice(1);
    expect(name).toMatch(/^orders_test_[0-9a-f]{12}$/);
    expect(url).toBe(`postgres://postgres@127.0.0.1:${server.port}/${name}`);
    expect(await psql(url, 'select current_database()')).toBe(name);
    expect(await psql(url, "select count(*) from pg_tables where schemaname = 'public'")).toBe('0');
    await psql(
      url,
      "create table orders (id int primary key, sku text not null); insert into orders values (1, 'A-1'), (2, 'B-2')",
    );
    expect(await psql(url, "select string_agg(id || ':' || sku, ',' order by id) from orders")).toBe(
      '1:A-1,2:B-2',
    );
    // The same name again is another, empty database.
    const again = await createDatabase(server, 'orders_test');
    expect(again).not.toBe(url);
    expect(await psql(again, "select count(*) from pg_tables where schemaname = 'public'")).toBe('0');
    await expect(createDatabase(server, 'Bad-Name')).rejects.toThrow('not a plain database name: Bad-Name');
  });

  it('stop() drops connections like a crash; start() brings it back on the same port with the data kept', async () => {
    const url = await createDatabase(server, 'crash_test');
    const port = server.port;
    await psql(url, 'create table kept (n int); insert into kept values (42)');

    await server.stop();
    const down = await selectOne(server.url);
    expect(down.code).toBe(2);
    expect(down.stderr).toContain('Connection refused');
    expect(existsSync(join(server.dir, 'data', 'PG_VERSION'))).toBe(true);

    await server.start();
    expect(server.port).toBe(port);
    expect(await selectOne(server.url)).toEqual({ code: 0, stdout: '1\n', stderr: '' });
    expect(await psql(url, 'select n from kept')).toBe('42');
  });

  it('destroy() stops the server and removes its temporary directory', async () => {
    const other = await startPostgresServer();
    expect(other.port).not.toBe(server.port);
    expect(existsSync(other.dir)).toBe(true);
    await other.destroy();
    expect(existsSync(other.dir)).toBe(false);
    expect((await selectOne(other.url)).code).toBe(2);
  });
});
