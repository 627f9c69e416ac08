/**
 * "The client went away" as a signal. srvx builds an AbortController per request the first
 * time `request.signal` is read; this reads the Node response's `close` directly instead, so a
 * request pays for one listener rather than a transferable AbortSignal and two listeners.
 */
import type { ServerResponse } from 'node:http';

/** The part of AbortSignal the gateway uses; an AbortSignal satisfies it too. */
export interface ClientSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

const CLIENT_GONE = Object.freeze(Object.assign(new Error('the client closed the connection'), { name: 'AbortError' }));

class ResponseCloseSignal implements ClientSignal {
  aborted = false;
  readonly reason = CLIENT_GONE;
  private listeners: Array<() => void> = [];

  constructor(res: ServerResponse) {
    res.once('close', () => {
      // A response that was fully written closed normally; only an early close is an abort.
      if (res.writableFinished) return;
      this.aborted = true;
      const listeners = this.listeners;
      this.listeners = [];
      for (const listener of listeners) listener();
    });
  }

  addEventListener(_type: 'abort', listener: () => void) {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void) {
    const index = this.listeners.indexOf(listener);
    if (index !== -1) this.listeners.splice(index, 1);
  }
}

/** The client-disconnect signal of a request (the Node response's close, else `request.signal`). */
export function clientSignal(request: Request): ClientSignal {
  const res = (request as Request & { runtime?: { node?: { res?: ServerResponse } } }).runtime?.node?.res;
  return res ? new ResponseCloseSignal(res) : request.signal;
}
