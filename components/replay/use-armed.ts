'use client';

import { useCallback, useEffect, useState } from 'react';

/** How long a first press stays armed, waiting for the confirming second one. */
const ARMED_MS = 4_000;

/**
 * A two-step action: the first press arms it (the button asks to confirm), a second press within
 * four seconds runs it; unarmed again after that. `needed` false runs it at the first press.
 */
export function useArmed(run: () => void, needed: boolean): { armed: boolean; press: () => void; disarm: () => void } {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    if (!armed) return;
    const timer = setTimeout(() => setArmed(false), ARMED_MS);
    return () => clearTimeout(timer);
  }, [armed]);
  const press = useCallback(() => {
    if (!needed || armed) {
      setArmed(false);
      run();
    } else {
      setArmed(true);
    }
  }, [armed, needed, run]);
  const disarm = useCallback(() => setArmed(false), []);
  return { armed, press, disarm };
}
