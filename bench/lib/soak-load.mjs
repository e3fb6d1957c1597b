// The soak's open-loop load and its bookkeeping (bench/soak.mjs): requests are sent at a fixed rate
// whatever the answers take (a slow or dead node does not slow the load down), round-robin over the
// nodes, and every answer is recorded against the promises the soak checks.
//   - 80%: authorize of the limited organization's key, counted in one group (the over-admission check);
//   - 15%: a read of the writer organization's own key;
//   - 5%: a key create of the writer organization, with an Idempotency-Key (the writes-lost check).
import { randomUUID } from "node:crypto";

/** 503 codes the reliability contract documents; any other 5xx breaks a promise. */
const DOCUMENTED_503 = new Set([
  "database_unavailable",
  "rate_limiter_unavailable",
  "service_unavailable",
  "shutting_down",
]);
const WINDOW_MS = 60_000;
const TICK_MS = 10;

export function startSoakLoad({ nodes, rate, serviceToken, limited, writer }) {
  const counts = { sent: 0, answered: 0, connectionErrors: 0 };
  /** Answers by request kind and status: "create 201", "read 503"... */
  const statuses = {};
  const tally = (kind, status) => (statuses[`${kind} ${status}`] = (statuses[`${kind} ${status}`] ?? 0) + 1);
  const decisions = {};
  const admissions = [];
  const acknowledged = new Set();
  const examples = [];
  let undocumented5xx = 0;
  let writerKeyId;
  const heap = new Map();
  let turn = 0;
  let owed = 0;
  const inFlight = new Set();

  const note5xx = (status, code, where) => {
    if (status < 500) return;
    if (status === 503 && DOCUMENTED_503.has(code)) return;
    undocumented5xx++;
    if (examples.length < 5) examples.push({ where, status, code });
  };

  async function send(node, kind) {
    counts.sent++;
    const started = Date.now();
    try {
      if (kind === "authorize") {
        const reply = await fetch(`${node.baseUrl}/v1/authorize`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-latchkey-service-token": serviceToken },
          body: JSON.stringify({
            authorization: limited.authorization,
            permission: "api_keys:read",
            group: limited.group,
          }),
        });
        const body = await reply.json();
        counts.answered++;
        note5xx(reply.status, body.code, "authorize");
        tally("authorize", reply.status);
        if (reply.status !== 200) return;
        decisions[body.status] = (decisions[body.status] ?? 0) + 1;
        note5xx(body.status, body.error?.code, "authorize decision");
        if (body.allowed) admissions.push({ started, answered: Date.now() });
      } else if (kind === "read") {
        if (!writerKeyId) return;
        const reply = await fetch(`${node.baseUrl}/v1/api-keys/${writerKeyId}`, {
          headers: { authorization: writer.authorization },
        });
        const body = await reply.json();
        counts.answered++;
        note5xx(reply.status, body.code, "read");
        tally("read", reply.status);
      } else {
        const name = `soak-${randomUUID()}`;
        const reply = await fetch(`${node.baseUrl}/v1/api-keys`, {
          method: "POST",
          headers: {
            authorization: writer.authorization,
            "content-type": "application/json",
            "idempotency-key": randomUUID(),
          },
          body: JSON.stringify({ name, permissions: [] }),
        });
        const body = await reply.json();
        counts.answered++;
        note5xx(reply.status, body.code, "create");
        tally("create", reply.status);
        if (reply.status === 400 && examples.length < 5) examples.push({ where: "create", body });
        if (reply.ok && typeof body.id === "string") acknowledged.add(body.id);
      }
    } catch {
      // A node killed or restarting: nothing was acknowledged.
      counts.connectionErrors++;
    }
  }

  const kindOf = (n) => (n % 20 === 0 ? "create" : n % 20 <= 3 ? "read" : "authorize");
  const ticker = setInterval(() => {
    owed += (rate * TICK_MS) / 1000;
    while (owed >= 1) {
      owed--;
      const node = nodes[turn % nodes.length];
      const request = send(node, kindOf(turn));
      turn++;
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
  }, TICK_MS);

  const sampler = setInterval(() => {
    for (const node of nodes) {
      const name = `node ${node.index}#${node.generation}`;
      fetch(`${node.baseUrl}/metrics`)
        .then((reply) => reply.text())
        .then((text) => {
          const used = /^nodejs_heap_size_used_bytes (\S+)/m.exec(text);
          if (!used) return;
          if (!heap.has(name)) heap.set(name, []);
          heap.get(name).push({ at: Date.now(), mb: Number(used[1]) / 1e6 });
        })
        .catch(() => {});
    }
  }, 5_000);

  // The writer's own key id, for the reads (the first admitted read of its key list gives it).
  const findWriterKey = async () => {
    for (const node of nodes) {
      const reply = await fetch(`${node.baseUrl}/v1/api-keys?count=1`, {
        headers: { authorization: writer.authorization },
      }).catch(() => undefined);
      if (reply?.ok) {
        writerKeyId = (await reply.json()).data[0]?.id;
        return;
      }
    }
  };
  void findWriterKey();

  /** Over-admissions: the most admissions whose whole request lay inside one window, past the quota. */
  function overAdmissions(quota) {
    const sorted = [...admissions].sort((a, b) => a.started - b.started);
    let worst = 0;
    for (let i = 0; i < sorted.length; i++) {
      const end = sorted[i].started + WINDOW_MS;
      let inside = 0;
      for (let j = i; j < sorted.length && sorted[j].started < end; j++) {
        if (sorted[j].answered <= end) inside++;
      }
      worst = Math.max(worst, inside - quota);
    }
    return worst;
  }

  async function listedKeyIds() {
    const ids = new Set();
    let next;
    for (;;) {
      const query = `count=100&include_disabled=true${next ? `&page_start=${next}` : ""}`;
      const reply = await fetch(`${nodes[0].baseUrl}/v1/api-keys?${query}`, {
        headers: { authorization: writer.authorization },
      });
      if (!reply.ok) throw new Error(`listing keys answered ${reply.status}: ${await reply.text()}`);
      const page = await reply.json();
      for (const key of page.data) ids.add(key.id);
      next = page.pagination?.next_page_start;
      if (!next) return ids;
    }
  }

  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length === 0 ? null : sorted[Math.floor(sorted.length / 2)];
  };

  return {
    progress: () =>
      `${counts.sent} sent, ${counts.connectionErrors} connection errors, ${admissions.length} admissions, ` +
      `${acknowledged.size} keys acknowledged, ${undocumented5xx} undocumented 5xx`,
    async finish(quota) {
      clearInterval(ticker);
      clearInterval(sampler);
      await Promise.all([...inFlight]);
      const listed = await listedKeyIds();
      const lost = [...acknowledged].filter((id) => !listed.has(id));
      return {
        counts,
        statuses,
        decisions,
        admissions: admissions.length,
        overAdmissions: overAdmissions(quota),
        writesAcknowledged: acknowledged.size,
        writesFound: acknowledged.size - lost.length,
        writesLost: lost.length,
        undocumented5xx,
        examples,
        heap: [...heap].map(([node, samples]) => {
          const half = samples.length >> 1;
          // A process sampled too briefly (one restarted near the end) has no halves to compare.
          if (samples.length < 6) return { node, first: null, second: null, ratio: null };
          const first = median(samples.slice(1, half).map((s) => s.mb));
          const second = median(samples.slice(half).map((s) => s.mb));
          return { node, first: first.toFixed(1), second: second.toFixed(1), ratio: second / first };
        }),
      };
    },
  };
}
