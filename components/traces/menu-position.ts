/** Where the open menu stands, in viewport pixels. */
export interface MenuPosition {
  top: number;
  left: number;
  /** The menu scrolls past this (a viewport too short for it). */
  maxHeight: number;
}

/** Space kept between the menu and the viewport's edges or its button. */
const GAP = 4;

/**
 * Where a menu of `size` opens for a button at `anchor`, inside `viewport` whatever the page's
 * scroll: below the button, right-aligned with it; above it when there is no room below and there
 * is above; pushed in from an edge it would cross (a table scrolled sideways can put the button
 * itself at or past the edge). Too tall for either side: at the top, scrolling.
 */
export function menuPosition(
  anchor: { top: number; bottom: number; right: number },
  size: { width: number; height: number },
  viewport: { width: number; height: number },
): MenuPosition {
  const maxHeight = viewport.height - 2 * GAP;
  const height = Math.min(size.height, maxHeight);
  const fitsBelow = anchor.bottom + GAP + height <= viewport.height - GAP;
  const fitsAbove = anchor.top - GAP - height >= GAP;
  const top = fitsBelow || !fitsAbove ? anchor.bottom + GAP : anchor.top - GAP - height;
  const clamp = (value: number, low: number, high: number) => Math.max(low, Math.min(value, high));
  return {
    top: clamp(top, GAP, viewport.height - GAP - height),
    left: clamp(anchor.right - size.width, GAP, viewport.width - GAP - size.width),
    maxHeight,
  };
}
