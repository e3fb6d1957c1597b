import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Dialect,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
  sql,
} from "kysely";

/**
 * What Kysely's migrator asks of PostgreSQL (does the schema exist, which tables does it hold), answered
 * for latchkey's own schema only. Kysely's own introspector reads every column of every schema in the
 * database and calls functions on each schema's name: a schema another program drops meanwhile fails
 * the whole query ("schema ... does not exist"), so a node could not start while someone else in the
 * same database cleaned up.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`
      select nspname as name from pg_catalog.pg_namespace where nspname = current_schema()`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; type: string }>`
      select table_name as name, table_schema as schema, table_type as type
      from information_schema.tables where table_schema = current_schema()`.execute(this.db);
    // The migrator reads only names and schemas; columns are not needed to decide what to migrate.
    return rows.map((row) => ({
      name: row.name,
      schema: row.schema,
      isView: row.type === "VIEW",
      columns: [],
    }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

/** `dialect` whose introspection sees only the connection's current schema. */
export function withCurrentSchemaIntrospection(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => dialect.createDriver(),
    createIntrospector: (db) => new CurrentSchemaIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
