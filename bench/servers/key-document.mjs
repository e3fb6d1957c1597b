// The constant document the baselines answer with, shaped and sized like a key record.
export const document = {
  id: "key_0123456789ABCDEFabcdef",
  api_id: "lkid_0123456789ABCDEFabcdef",
  name: "bench target",
  description: "The key the benchmark reads back, with a few permissions.",
  enabled: true,
  permissions: ["images:create", "images:read", "templates:read", "api_keys:read"],
  all_future_permissions: false,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
};
