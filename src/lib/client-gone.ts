import type { ServerResponse } from 'node:http';

/** A signal that aborts when the client goes away before the response was fully sent. */
export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}
