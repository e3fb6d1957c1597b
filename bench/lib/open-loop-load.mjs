// An open-loop load generator: requests are sent on a fixed schedule (`rate` per second) whatever the
// answers take, over a keep-alive pool of up to `maxSockets` connections, and each latency is counted
// from the moment its request was due, not from when it was sent: if the generator or the server falls
// behind, the wait shows in the figures (no coordinated omission).
import http from "node:http";
import { LatencyHistogram } from "./load.mjs";

export function openLoop({ port, target, rate, seconds, maxSockets = 512 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const latencies = new LatencyHistogram();
  const body = target.body ? Buffer.from(target.body) : undefined;
  const headers = { ...target.headers, ...(body ? { "content-length": String(body.length) } : {}) };
  const total = Math.round(rate * seconds);
  let sent = 0;
  let finished = 0;
  let failures = 0;
  const started = performance.now();
  return new Promise((resolve) => {
    const done = () => {
      finished++;
      if (finished < total) return;
      agent.destroy();
      const elapsed = (performance.now() - started) / 1000;
      resolve({ latencies, failures, achieved: (total - failures) / elapsed });
    };
    const send = (due) => {
      const request = http.request(
        { agent, host: "127.0.0.1", port, path: target.path, method: target.method ?? "GET", headers },
        (response) => {
          response.resume();
          response.on("end", () => {
            if (response.statusCode === 200) latencies.record(performance.now() - due);
            else failures++;
            done();
          });
        },
      );
      request.on("error", () => {
        failures++;
        done();
      });
      request.end(body);
    };
    const tick = () => {
      const now = performance.now();
      const dueCount = Math.min(total, Math.floor(((now - started) / 1000) * rate));
      while (sent < dueCount) {
        send(started + (sent * 1000) / rate);
        sent++;
      }
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
}
