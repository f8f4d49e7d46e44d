/**
 * No other site may frame a page (lib/http/frame-headers.ts's FRAME_HEADERS, for what the HTTP
 * layer answers; a test keeps the two equal): sent by Next under `npm run dev` and for what it
 * serves under `npm start`. Only `frame-ancestors` and directives no page needs: a `script-src`
 * would break Next's inline scripts.
 */
const FRAME_HEADERS = [
  { key: 'Content-Security-Policy', value: "frame-ancestors 'none'; base-uri 'self'; object-src 'none'" },
  { key: 'X-Frame-Options', value: 'DENY' },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Another build folder for a second dev server beside the built app (`TOOLSCOPE_NEXT_DIST_DIR=.next-dev npm run dev`).
  ...(process.env.TOOLSCOPE_NEXT_DIST_DIR ? { distDir: process.env.TOOLSCOPE_NEXT_DIST_DIR } : {}),
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ['better-sqlite3', 'mathjs'],
  experimental: {
    // The proxy (request guard) buffers request bodies, cutting them at 10 MB by default: an
    // import file may be 32 MiB (IMPORT_MAX_BYTES, lib/api/export-import.ts). Each route still
    // bounds its own body; past this, the declared size gets the import's 413.
    proxyClientMaxBodySize: '33mb',
  },
  turbopack: {
    // The config file's path comes from the environment at run time, on purpose.
    ignoreIssue: [{ path: '**/lib/config.ts', title: /Dynamic filesystem access/ }],
  },
  async headers() {
    return [{ source: '/:path*', headers: FRAME_HEADERS }];
  },
  // Under `npm run dev`, `/mcp` and the login's routes go to the HTTP layer's catch-all route as
  // the API does (`npm start` serves them in front of Next, and never gets here).
  async rewrites() {
    return {
      beforeFiles: [
        { source: '/mcp', destination: '/api/_rewrite/mcp' },
        { source: '/auth/:path*', destination: '/api/_rewrite/auth/:path*' },
      ],
    };
  },
};

export default nextConfig;
