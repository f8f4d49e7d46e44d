import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="flex flex-col items-start gap-2 py-10" data-testid="not-found">
      <h1 className="text-base font-semibold">Not found</h1>
      <p className="text-fg-muted">There is no trace or tool at this address. It may belong to another data folder.</p>
      <Link href="/" className="text-accent hover:underline">
        Back to the traces
      </Link>
    </div>
  );
}
