import type { ShellSandboxJson } from '@/lib/tools/process-sandbox';

/**
 * What run_shell runs programs in, above the tools list: a quiet line with the bubblewrap
 * sandbox; without one (or with one that is refused: shell.network without slirp4netns), a
 * notice that says why and what follows (calls refused, or programs that can read whatever the
 * server can), and how to change it.
 */
export function SandboxNotice({ sandbox }: { sandbox: ShellSandboxJson }) {
  if (sandbox.run_shell === 'sandboxed') {
    return (
      <p className="text-xs text-fg-muted" data-testid="sandbox-notice" data-sandbox="bubblewrap">
        run_shell runs programs in a bubblewrap sandbox: they see only the workspace and the system's read-only folders,{' '}
        {sandbox.network ? "with network (never this machine's loopback)" : 'without network'}, and die with the server.
      </p>
    );
  }
  const refused = sandbox.run_shell === 'refused';
  return (
    <div
      role="status"
      className={`rounded border px-2 py-1.5 text-xs ${
        refused
          ? 'border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200'
          : 'border-red-200 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200'
      }`}
      data-testid="sandbox-notice"
      data-sandbox={sandbox.kind}
    >
      <p className="font-semibold">
        {sandbox.kind === 'bubblewrap' ? 'run_shell is refused' : 'No sandbox for run_shell'}:{' '}
        {sandbox.reason ?? 'none available'}.
      </p>
      <p>
        {sandbox.kind === 'bubblewrap'
          ? 'Every run_shell call is refused. Install slirp4netns (apt-get install slirp4netns) and restart, or turn the network off with "shell": { "network": false } in toolscope.config.json.'
          : refused
            ? 'Every run_shell call is refused. Install bubblewrap (apt-get install bubblewrap) and restart, or accept the risk with "shell": { "allow_unsandboxed": true } in toolscope.config.json.'
            : 'run_shell runs programs unsandboxed (shell.allow_unsandboxed): they can read and change anything the server can, its environment included, and reach the network.'}
      </p>
    </div>
  );
}
