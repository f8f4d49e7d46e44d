/**
 * Runs once when the server starts (Node.js runtime only): see lib/server/boot.ts.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { boot } = await import('./lib/server/boot');
    boot();
  }
}
