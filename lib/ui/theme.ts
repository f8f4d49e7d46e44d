/** The theme choice kept in localStorage; `system` follows `prefers-color-scheme`. */
export type ThemeChoice = 'system' | 'light' | 'dark';

export const THEME_STORAGE_KEY = 'toolscope-theme';

/**
 * Runs in <head> before the first paint: applies the stored (or system) theme to <html>, so a
 * dark-mode user never sees a light flash.
 */
export const THEME_SCRIPT = `(function(){try{var c=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});var d=c==="dark"||((c!=="light")&&window.matchMedia("(prefers-color-scheme: dark)").matches);var e=document.documentElement;e.classList.toggle("dark",d);e.dataset.theme=c||"system";}catch(_){}})()`;
