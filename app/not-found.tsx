import Link from 'next/link';

/** An unknown trace or tool: say what may have happened and where to go. */
export default function NotFound() {
  return (
    <div className="flex max-w-2xl flex-col items-start gap-2 py-10" data-testid="not-found">
      <h1 className="text-base font-semibold">Not found</h1>
      <p className="text-fg-muted">
        There is no trace or tool at this address. The call may have been deleted (by hand or by retention), the tool
        may no longer be registered, or the link may come from another data folder.
      </p>
      <Link href="/" className="text-accent hover:underline">
        Back to the newest calls
      </Link>
    </div>
  );
}
