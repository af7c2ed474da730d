/**
 * The bytes of message content this process holds at once, across HTTP request bodies and SMTP DATA: each request or
 * message reserves its bytes before they are read (HTTP, by the declared length) or as they arrive (SMTP), and gives
 * them back when it is answered. Past the configured limit a new one is refused for a moment (HTTP 503 with
 * Retry-After, SMTP 451) instead of growing the process without bound. One reservation is always allowed when nothing
 * else is held, so a single message up to the body limit is never refused by this. Lifecycle: one per process, in
 * the context.
 */

/** Seconds a client refused for a full process is told to wait. */
export const BUSY_RETRY_SECONDS = 5;

/** The in-flight byte budget of one process. */
export interface InFlight {
  /** Reserves `bytes`; false (nothing reserved) when that would pass the limit while something else is held. */
  take(bytes: number): boolean;
  /** Gives back bytes reserved earlier. */
  release(bytes: number): void;
  /** The bytes held now. */
  readonly held: number;
}

/** Creates the budget: at most `limit` bytes held at once (0 turns it off). */
export function createInFlight(limit: number): InFlight {
  let held = 0;
  return {
    get held() {
      return held;
    },
    take(bytes) {
      if (limit > 0 && held > 0 && held + bytes > limit) return false;
      held += bytes;
      return true;
    },
    release(bytes) {
      held = Math.max(0, held - bytes);
    },
  };
}
