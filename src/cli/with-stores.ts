import { loadConfig } from "../config.js";
import type { Stores } from "../store/open-database.js";

/**
 * Opens every store on LATCHKEY_DATABASE_URL for one operator command and closes it afterwards. The
 * database modules are imported on use, so that `latchkey keys ...` does not load the drivers.
 */
export async function withStores<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
  const { openStores } = await import("../store/open-database.js");
  const stores = await openStores(loadConfig().databaseUrl);
  try {
    return await work(stores);
  } finally {
    await stores.close();
  }
}
