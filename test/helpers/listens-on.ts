import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** The inodes of the listening TCP sockets on `port` (Linux's /proc/net tables, IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      // 0A: LISTEN.
      if (local?.endsWith(hexPort) && state === "0A" && inode !== undefined) inodes.add(inode);
    }
  }
  return inodes;
}

/**
 * Whether process `pid` itself listens on `port`. A free port handed out by `freePort` can be taken by
 * another suite's server before the process started on it binds it; that server then answers /healthz,
 * and a suite would talk to a stranger. Starters check this beside /healthz.
 */
export function listensOn(pid: number | undefined, port: number): boolean {
  if (pid === undefined) return false;
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return false;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      return inode !== undefined && inodes.has(inode);
    });
  } catch {
    return false;
  }
}
