/** @type {import('next').NextConfig} */
const nextConfig = {
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
};

export default nextConfig;
