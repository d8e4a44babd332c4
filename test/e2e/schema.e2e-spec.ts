import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ENTITIES } from '../../src/app-entities';
import { adminQuery } from './support/admin-query';
import { type DatabaseKind, describeBothDatabases } from './support/both-databases';

/**
 * The migrations create the schema, the entities declare it: they must agree, on PostgreSQL and on
 * the embedded database.
 *
 * 1. TypeORM's own schema diff (what `npm run migration:generate` would write) is empty. It
 *    compares columns (type, length, nullability, default, collation, generated expression),
 *    primary keys, and constraints and indexes by name, but not the expression of a check or the
 *    predicate of a partial index.
 * 2. So the catalog is compared too: a database built from the entities alone (TypeORM's
 *    `synchronize`, never used by the app) has, line for line, the columns, constraints (with
 *    their definitions) and indexes (with their predicates) of the migrated one, apart from the
 *    four indexes with a `DESC` key that TypeORM cannot declare (`synchronize: false` in the
 *    entities), whose definitions are checked here.
 */

/** The indexes the migrations create and the entities declare with `synchronize: false`, as PostgreSQL prints them. */
const UNSYNCHRONIZED_INDEXES: Record<string, string> = {
  rfqs_taker_list: 'CREATE INDEX rfqs_taker_list ON public.rfqs USING btree (account_id, id DESC)',
  rfqs_state: 'CREATE INDEX rfqs_state ON public.rfqs USING btree (state, id DESC)',
  fills_taker: 'CREATE INDEX fills_taker ON public.fills USING btree (taker_account_id, id DESC)',
  fills_maker: 'CREATE INDEX fills_maker ON public.fills USING btree (maker_account_id, id DESC)',
  positions_by_expiry:
    'CREATE INDEX positions_by_expiry ON public.positions USING btree (account_id, settled, expiry, instrument COLLATE "C") WHERE (quantity <> 0)',
};

/** Tables that are not the app's: TypeORM's migration log and its metadata (compared on their own). */
const NOT_ENTITIES = ['migrations', 'typeorm_metadata'];

/** One line per column, constraint and index of the app's tables in schema public, sorted. */
const CATALOG = `
  SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
         || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
         || CASE WHEN co.collname IS NOT NULL AND co.collname <> 'default' THEN ' COLLATE ' || co.collname ELSE '' END
         || CASE WHEN a.attgenerated = 's' THEN ' GENERATED ' || pg_get_expr(d.adbin, d.adrelid)
                 WHEN d.adbin IS NOT NULL THEN ' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid) ELSE '' END AS line
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    LEFT JOIN pg_collation co ON co.oid = a.attcollation
   WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
     AND c.relname <> ALL($1::text[])
  UNION ALL
  SELECT 'constraint ' || c.relname || ' ' || con.conname || ' ' || pg_get_constraintdef(con.oid)
    FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
   WHERE con.connamespace = 'public'::regnamespace AND c.relname <> ALL($1::text[])
  UNION ALL
  SELECT 'index ' || tablename || ' ' || indexname || ' ' || indexdef
    FROM pg_indexes WHERE schemaname = 'public' AND tablename <> ALL($1::text[])
  UNION ALL
  SELECT 'table ' || relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' AND relname <> ALL($1::text[])
  ORDER BY 1`;

/** TypeORM's metadata rows, without the database name (each test database has its own). */
const TYPEORM_METADATA = `SELECT type, schema, "table", name, value FROM typeorm_metadata ORDER BY type, "table", name`;

/** TypeORM writes a numeric default quoted (`DEFAULT '0'`, printed `'0'::bigint`), the migrations plain (`DEFAULT 0`): one constant. */
function sameConstant(line: string): string {
  return line.replace(/ DEFAULT '(-?\d+)'::bigint$/, ' DEFAULT $1');
}

interface Line {
  line: string;
}

// The embedded database is migrated here from nothing, not copied from the run's migrated template.
describeBothDatabases('schema: the migrations and the entities agree', { fromNothing: true }, (getDb, kind) => {
  it("TypeORM's schema diff after every migration is empty", async () => {
    expect(await getDb().schemaDifferences()).toEqual([]);
  });

  it('every table of the migrations has an entity, and no entity lacks a table', async () => {
    const tables = await getDb().rows<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' AND relname <> ALL($1::text[]) ORDER BY 1`,
      [NOT_ENTITIES],
    );
    const declared = getDb().manager.connection.entityMetadatas.map((m) => m.tableName);
    expect([...declared].sort()).toEqual(tables.map((t) => t.name));
  });

  it('a database built from the entities alone has the catalog of the migrated one (checks, predicates, definitions)', async () => {
    const migrated = (await getDb().rows<Line>(CATALOG, [NOT_ENTITIES])).map((r) => sameConstant(r.line));
    const migratedMetadata = await getDb().rows<Record<string, string>>(TYPEORM_METADATA);
    const built = await fromEntities(kind);

    const unsynchronized = migrated.filter((line) => line.startsWith('index ') && line.split(' ')[2] in UNSYNCHRONIZED_INDEXES);
    expect(unsynchronized.map((line) => line.replace(/^index \w+ \w+ /, '')).sort()).toEqual(Object.values(UNSYNCHRONIZED_INDEXES).sort());
    expect(migrated.filter((line) => !unsynchronized.includes(line))).toEqual(built.catalog);
    expect(migratedMetadata).toEqual(built.metadata);
  }, 120_000);
});

/** The catalog and TypeORM metadata of a fresh database of `kind` that TypeORM built from ENTITIES (synchronize). */
async function fromEntities(kind: DatabaseKind): Promise<{ catalog: string[]; metadata: Array<Record<string, string>> }> {
  const inspect = async (url: string) => {
    const dataSource = new DataSource({ type: 'postgres', url, poolSize: 1, extra: { max: 1 }, entities: [...ENTITIES], synchronize: true, logging: false });
    await dataSource.initialize();
    try {
      const catalog = (await dataSource.query<Line[]>(CATALOG, [NOT_ENTITIES])).map((r) => sameConstant(r.line));
      const metadata = await dataSource.query<Array<Record<string, string>>>(TYPEORM_METADATA);
      return { catalog, metadata };
    } finally {
      await dataSource.destroy();
    }
  };
  if (kind === 'postgres') {
    const base = process.env.DATABASE_URL!;
    const name = `entities_${process.pid}_${randomBytes(4).toString('hex')}`;
    await adminQuery(base, `CREATE DATABASE ${name}`);
    try {
      const url = new URL(base);
      url.pathname = `/${name}`;
      return await inspect(url.toString());
    } finally {
      await adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 2 });
  await server.start();
  try {
    return await inspect(`postgres://postgres@${server.getServerConn()}/postgres`);
  } finally {
    await server.stop();
    await db.close();
  }
}
