/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ['better-sqlite3', 'mathjs'],
  turbopack: {
    // The config file's path comes from the environment at run time, on purpose.
    ignoreIssue: [{ path: '**/lib/config.ts', title: /Dynamic filesystem access/ }],
  },
};

export default nextConfig;
