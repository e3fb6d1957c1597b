import { type RawBuilder, sql } from "kysely";
import { thresholdData, thresholdDedupeKey, thresholdMarks } from "../domain/credit-alerts.js";
import type { CreditConsumption } from "./plan-store.js";
import { newMessageId } from "./webhook-outbox.js";

/**
 * PostgreSQL: the `credits.threshold_reached` events of a consumption as data-modifying CTEs of its
 * one statement (consume-credits.ts), so a crossing and its event commit together and a consumption
 * that crosses nothing costs no round trip more. `consumed` is the upsert's CTE: its `used` is the total
 * after this consumption, read under the row's lock, so of many concurrent consumers exactly one sees
 * a mark crossed; the message's unique dedupe key holds the once-per-period rule besides. The rows are
 * webhook-outbox.ts's `enqueueEvent`'s: one message, and a delivery per enabled endpoint subscribed
 * (the organization's and the platform's); none when no endpoint listens. The data is
 * `thresholdData`'s with `used` added here. Empty when the plan has no thresholds.
 */
export function thresholdOutbox(c: CreditConsumption): RawBuilder<unknown> {
  const marks = c.alerts ? thresholdMarks(c.allowance, c.alerts.thresholds) : [];
  if (!c.alerts || marks.length === 0) return sql``;
  const at = c.alerts.at;
  const rows = marks.map(
    (mark) => sql`(cast(${mark.percent} as integer), cast(${mark.credits} as bigint),
      cast(${newMessageId()} as text), cast(${thresholdDedupeKey(c.orgId, c.periodEnd, mark.percent)} as text),
      cast(${JSON.stringify(thresholdData(c.orgId, mark.percent, c.allowance, c.periodEnd))} as jsonb))`,
  );
  return sql`
    crossed as (select t.message_id, t.dedupe_key, t.data || jsonb_build_object('used', consumed.used) as data
      from consumed join (values ${sql.join(rows)}) as t(percent, mark, message_id, dedupe_key, data)
      on consumed.used - ${c.credits} < t.mark and consumed.used >= t.mark),
    listeners as (select id from webhook_endpoints
      where enabled = 1 and (org_id is null or org_id = ${c.orgId})
      and strpos(events, '"credits.threshold_reached"') > 0),
    messages as (insert into webhook_messages (id, org_id, type, at, data, dedupe_key)
      select message_id, ${c.orgId}, 'credits.threshold_reached', cast(${at} as bigint), data::text, dedupe_key
      from crossed where exists (select 1 from listeners)
      on conflict (dedupe_key) do nothing returning id),
    deliveries as (insert into webhook_deliveries
      (id, message_id, endpoint_id, status, attempts, next_attempt_at, created_at)
      select 'whd_' || substr(md5(messages.id || listeners.id), 1, 22), messages.id, listeners.id,
        'pending', 0, cast(${at} as bigint), cast(${at} as bigint)
      from messages cross join listeners),`;
}
