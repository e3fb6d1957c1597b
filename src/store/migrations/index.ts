import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import { initial } from "./001-initial.js";

/** Migrations ship in code, not as files on disk, so the built package needs nothing beside it. */
const migrations: Record<string, Migration> = {
  "001-initial": initial,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Brings the schema up to date; safe to run on every start and from several nodes at once. */
export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
