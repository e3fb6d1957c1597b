import { type Kysely, type Migration, sql } from "kysely";

/**
 * Organization names are unique, ignoring case: two organizations called "acme" and "Acme" cannot be
 * told apart in a list. Names that already collide keep the oldest as it is and gain their id.
 */
export const organizationNames: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      update organizations set name = name || ' (' || id || ')'
      where exists (
        select 1 from organizations older
        where lower(older.name) = lower(organizations.name)
          and (older.created_at < organizations.created_at
            or (older.created_at = organizations.created_at and older.id < organizations.id))
      )`.execute(db);
    await sql`create unique index organizations_name_unique on organizations (lower(name))`.execute(db);
  },
};
