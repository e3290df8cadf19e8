// A message that fades when it is good news and stays when it is an error.

import { useEffect, useState } from 'react';

/** A Status (with any extra fields) that clears itself `fadeMs` after an OK message; errors stay. */
export function useFadingStatus<S extends { kind: 'ok' | 'error' }>(fadeMs: number): [S | null, (s: S | null) => void] {
  const [status, setStatus] = useState<S | null>(null);
  useEffect(() => {
    if (status?.kind !== 'ok') return;
    const timer = window.setTimeout(() => setStatus(null), fadeMs);
    return () => window.clearTimeout(timer);
  }, [status, fadeMs]);
  return [status, setStatus];
}
