'use client';

import { createContext, type ReactNode, useContext } from 'react';
import { type Action, type Role, reachOf } from '@/lib/access/roles';

/** Who is looking at the pages: the principal of the login (or local mode's person). */
export interface Viewer {
  id: string;
  name: string;
  role: Role;
  kind: 'key' | 'token' | 'local';
  /** No key is set up: anyone on this machine is this viewer. */
  localMode: boolean;
}

const ViewerContext = createContext<Viewer | null>(null);

/** Gives the pages the viewer the layout resolved on the server. */
export function ViewerProvider({ viewer, children }: { viewer: Viewer; children: ReactNode }) {
  return <ViewerContext.Provider value={viewer}>{children}</ViewerContext.Provider>;
}

/** The viewer; null outside the layout (the login page). */
export function useViewer(): Viewer | null {
  return useContext(ViewerContext);
}

/**
 * Whether the viewer may do `action` (the ACTIONS table the server checks): what a page offers.
 * The server refuses what this would not show anyway; this only keeps the buttons honest.
 */
export function useMay(action: Action): boolean {
  const viewer = useContext(ViewerContext);
  return viewer !== null && reachOf(viewer.role, action) !== null;
}
