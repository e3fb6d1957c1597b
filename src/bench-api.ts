/**
 * What `bench/` measures inside latchkey, in one typed module (dist/bench-api.js): the scripts import
 * these names from here, never a dist/ file by its path, so that a change of any of them is a type
 * error in this file (`npm run lint`, `npm run build`) rather than a bench script failing weeks later.
 * Not a public export of the package.
 */
export { buildApp, createServices, type Services } from "./app.js";
export { loadConfig } from "./config.js";
export { systemClock } from "./domain/clock.js";
export { newApiId, newKeyId } from "./domain/credentials.js";
export { grantAllows } from "./domain/permissions.js";
export { toKeyResponse } from "./http/key-response.js";
export { logDestination } from "./http/logger-options.js";
export { KeyRecord } from "./http/schemas.js";
export { createMemoryRateLimiter } from "./ratelimit/memory-rate-limiter.js";
export { openRedis, waitUntilReady } from "./redis/connection.js";
export { createRedisRateLimiter } from "./ratelimit/redis-rate-limiter.js";
export { authenticate } from "./services/authenticate.js";
export { KEY_OPERATIONS, missingPermission } from "./services/operations.js";
export { createOrganizationWithOwner } from "./services/organizations.js";
export { recordToRow, rowToRecord } from "./store/key-rows.js";
export { openStores } from "./store/open-database.js";
