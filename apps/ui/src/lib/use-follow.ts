import { useEffect, useRef, useState } from 'react';
import { follow, type ServerEvent } from '../api/client';

export type FollowState = 'connecting' | 'live' | 'ended' | 'failed';

/**
 * Follows a server-sent event stream while `url` is set: `onEvent` per event, and
 * the state of the stream. A new url (a filter change) closes the old stream.
 */
export function useFollow(url: string | undefined, onEvent: (event: ServerEvent) => void): FollowState {
  const [state, setState] = useState<FollowState>('connecting');
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (!url) return;
    const abort = new AbortController();
    setState('connecting');
    follow(
      url,
      (event) => {
        setState(event.event === 'end' ? 'ended' : event.event === 'error' ? 'failed' : 'live');
        handler.current(event);
      },
      abort.signal,
    ).then(
      () => setState((current) => (current === 'failed' ? current : 'ended')),
      () => {
        if (!abort.signal.aborted) setState('failed');
      },
    );
    return () => abort.abort();
  }, [url]);
  return state;
}

/** The current time, ticking every `ms` while `active`. */
export function useNow(active: boolean, ms = 500): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
  return now;
}
