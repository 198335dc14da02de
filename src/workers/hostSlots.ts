/**
 * Attempts in flight per receiver host in one dispatcher, at most `perHost` each: a receiver that is
 * slow or has a long backlog holds its own share of the slots, never all of them. Only hosts with
 * attempts in flight are kept (the map is bounded by the dispatcher's concurrency).
 */
export function createHostSlots(perHost: number) {
  const inFlight = new Map<string, number>();
  return {
    /** Takes a slot of `host`: its give-back, or undefined when the host is at its bound. */
    take(host: string): (() => void) | undefined {
      const held = inFlight.get(host) ?? 0;
      if (held >= perHost) return undefined;
      inFlight.set(host, held + 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        const left = (inFlight.get(host) ?? 1) - 1;
        if (left <= 0) inFlight.delete(host);
        else inFlight.set(host, left);
      };
    },
    /** Each busy host's room left (0 when full), for the claim query; a host not listed has `perHost`. */
    rooms(): { hosts: string[]; rooms: number[] } {
      const hosts = [...inFlight.keys()];
      return { hosts, rooms: hosts.map((host) => Math.max(0, perHost - inFlight.get(host)!)) };
    },
    perHost,
  };
}

export type HostSlots = ReturnType<typeof createHostSlots>;
