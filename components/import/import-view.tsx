'use client';

import { useMutation } from '@tanstack/react-query';
import { CircleCheck, FileUp, TriangleAlert } from 'lucide-react';
import Link from 'next/link';
import { useCallback, useEffect, useRef, useState } from 'react';
import { formatBytes } from '@/lib/ui/format';
import { fetchOrUnreachable, UNREACHABLE } from '@/lib/ui/unreachable';
import { isTypingTarget } from '../shortcuts-dialog';
import { useHydrated } from '../timestamp';

/** The largest file the server takes (`IMPORT_MAX_BYTES`): a bigger one is refused before it is sent. */
const MAX_BYTES = 32 * 1024 * 1024;
/** Trace links listed after an import; the rest are one link to the list filtered by session. */
const LISTED_TRACES = 12;

/** `POST /api/v1/import`'s 201 answer. */
export interface ImportAnswer {
  kind: 'trace' | 'session';
  session_id: string | null;
  /** The file's session id when a session here already had it (the calls went into `session_id`). */
  renamed_from?: string | null;
  trace_ids: string[];
  imported: number;
}

/** A refusal as the API words it, or one found before sending. */
export interface ImportFailure {
  code: string;
  message: string;
  errors: { path: string; message: string }[];
  /** The trace already stored (ALREADY_EXISTS). */
  traceId?: string;
}

type Outcome = { ok: true; file: string; answer: ImportAnswer } | { ok: false; file: string; failure: ImportFailure };

async function importFile(file: File): Promise<Outcome> {
  if (file.size > MAX_BYTES) {
    return {
      ok: false,
      file: file.name,
      failure: {
        code: 'PAYLOAD_TOO_LARGE',
        message: `The file is ${formatBytes(file.size)}; Toolscope imports files up to ${formatBytes(MAX_BYTES)}.`,
        errors: [],
      },
    };
  }
  const response = await fetchOrUnreachable('/api/v1/import', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: await file.text(),
  });
  const json = (await response.json().catch(() => null)) as
    | (ImportAnswer & { error?: undefined })
    | {
        error?: {
          code?: string;
          message?: string;
          details?: { errors?: ImportFailure['errors']; trace_id?: string };
        };
      }
    | null;
  if (response.ok && json && !json.error) return { ok: true, file: file.name, answer: json as ImportAnswer };
  const error = json?.error;
  return {
    ok: false,
    file: file.name,
    failure: {
      code: error?.code ?? `HTTP_${response.status}`,
      message: error?.message ?? `The server answered ${response.status} without saying why.`,
      errors: Array.isArray(error?.details?.errors) ? error.details.errors : [],
      ...(typeof error?.details?.trace_id === 'string' ? { traceId: error.details.trace_id } : {}),
    },
  };
}

/**
 * Imports a Toolscope export file (a trace or a session, from `Export` on a trace or session
 * page): dropped anywhere on the page, or picked with the button (`o`). Shows what was imported,
 * with links, or why the file was refused — the server's message names the first bad field.
 */
export function ImportView() {
  const picker = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  // true once hydrated: the drop target and the `o` key listen from then on
  const ready = useHydrated();
  const mutation = useMutation<Outcome, Error, File>({ mutationFn: importFile });
  const { mutate } = mutation;
  const start = useCallback(
    (files: FileList | null | undefined) => {
      const file = files?.[0];
      if (file) mutate(file);
    },
    [mutate],
  );

  // The whole page is the drop target: a file dropped a little off the box is not opened by the browser.
  useEffect(() => {
    let depth = 0;
    const hasFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false;
    const enter = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      depth++;
      setDragging(true);
    };
    const leave = () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const over = (event: DragEvent) => {
      if (hasFiles(event)) event.preventDefault();
    };
    const drop = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      depth = 0;
      setDragging(false);
      start(event.dataTransfer?.files);
    };
    const key = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTypingTarget(event.target)) return;
      if (document.querySelector('dialog[open]')) return;
      if (event.key === 'o') {
        event.preventDefault();
        picker.current?.click();
      }
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    document.addEventListener('keydown', key);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
      document.removeEventListener('keydown', key);
    };
  }, [start]);

  const outcome = mutation.data;
  return (
    <div className="flex max-w-3xl flex-col gap-4">
      <header className="flex flex-col gap-1">
        <h1 className="text-lg font-semibold">Import</h1>
        <p className="text-sm text-fg-muted">
          Open a trace or a session exported from a Toolscope (its <strong className="font-medium">Export</strong>{' '}
          button) to read it here — for a bug report. Imported calls are marked imported and read-only: they are never
          run again.
        </p>
      </header>

      <button
        type="button"
        onClick={() => picker.current?.click()}
        disabled={mutation.isPending}
        className={`flex flex-col items-center gap-2 rounded-lg border-2 border-dashed px-6 py-10 text-sm transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-accent ${
          dragging
            ? 'border-accent bg-accent/10 text-fg'
            : 'border-line text-fg-muted hover:border-accent/60 hover:bg-muted/50 hover:text-fg'
        }`}
        aria-keyshortcuts="o"
        aria-describedby="import-hint"
        data-testid="import-drop-zone"
        data-dragging={dragging || undefined}
        data-ready={ready || undefined}
      >
        <FileUp size={28} aria-hidden className={dragging ? 'text-accent' : ''} />
        <span className="font-medium text-fg">
          {mutation.isPending ? 'Importing…' : dragging ? 'Drop to import' : 'Drop an export file here, or choose one'}
        </span>
        <span id="import-hint" className="text-xs">
          A <code className="font-mono">.json</code> file from Export, up to {formatBytes(MAX_BYTES)}
          <span data-keyboard-hint>
            {' '}
            · press <kbd className="rounded border border-line px-1 font-mono text-[10px]">o</kbd> to choose
          </span>
        </span>
      </button>
      <input
        ref={picker}
        type="file"
        accept="application/json,.json"
        className="sr-only"
        tabIndex={-1}
        aria-label="Export file to import"
        data-testid="import-file"
        onChange={(event) => {
          start(event.currentTarget.files);
          event.currentTarget.value = '';
        }}
      />

      {mutation.error && (
        <Refusal file={null} failure={{ code: UNREACHABLE, message: mutation.error.message, errors: [] }} />
      )}
      {outcome &&
        !mutation.isPending &&
        (outcome.ok ? <Imported outcome={outcome} /> : <Refusal file={outcome.file} failure={outcome.failure} />)}
    </div>
  );
}

function Imported({ outcome }: { outcome: Extract<Outcome, { ok: true }> }) {
  const { answer } = outcome;
  const session = answer.session_id;
  const listed = answer.trace_ids.slice(0, LISTED_TRACES);
  return (
    <section
      className="flex flex-col gap-2 rounded border border-emerald-300 bg-emerald-50/60 px-3 py-2 text-sm dark:border-emerald-800 dark:bg-emerald-950/30"
      role="status"
      data-testid="import-result"
    >
      <p className="flex flex-wrap items-center gap-x-1.5 font-medium">
        <CircleCheck size={15} aria-hidden className="text-emerald-700 dark:text-emerald-300" />
        Imported {answer.imported} {answer.imported === 1 ? 'call' : 'calls'}
        {answer.kind === 'session' && session ? (
          <>
            {' '}
            of session{' '}
            <Link
              href={`/sessions/${encodeURIComponent(session)}`}
              className="font-mono text-accent hover:underline"
              data-testid="import-session-link"
            >
              {session}
            </Link>
          </>
        ) : null}
        <span className="font-normal text-fg-muted">from {outcome.file}</span>
      </p>
      {answer.renamed_from && (
        <p className="text-xs text-fg-muted" data-testid="import-renamed">
          A session here is already called <span className="font-mono">{answer.renamed_from}</span>: the imported calls
          went into a session of their own
          {session ? (
            <>
              {' '}
              (<span className="font-mono">{session}</span>)
            </>
          ) : null}
          .
        </p>
      )}
      <ul className="flex flex-col gap-0.5 text-xs" aria-label="Imported calls">
        {listed.map((id) => (
          <li key={id}>
            <Link
              href={`/traces/${encodeURIComponent(id)}`}
              className="font-mono text-accent hover:underline"
              data-testid="import-trace-link"
            >
              {id}
            </Link>
          </li>
        ))}
      </ul>
      {session && (
        <Link href={`/?session=${encodeURIComponent(session)}`} className="w-fit text-xs text-accent hover:underline">
          {answer.trace_ids.length > LISTED_TRACES
            ? `All ${answer.trace_ids.length} calls in the traces list`
            : 'See them in the traces list'}
        </Link>
      )}
    </section>
  );
}

function Refusal({ file, failure }: { file: string | null; failure: ImportFailure }) {
  return (
    <section
      className="flex flex-col gap-1.5 rounded border border-red-300 bg-red-50/60 px-3 py-2 text-sm dark:border-red-800 dark:bg-red-950/30"
      role="alert"
      data-testid="import-error"
      data-code={failure.code}
    >
      <p className="flex flex-wrap items-center gap-x-1.5 font-medium text-red-800 dark:text-red-200">
        <TriangleAlert size={15} aria-hidden />
        {file ? `${file} was not imported` : 'Nothing was imported'}
        <code className="font-mono text-xs font-normal">{failure.code}</code>
      </p>
      <p data-testid="import-error-message">{failure.message}</p>
      {failure.errors.length > 1 && (
        <ul className="flex flex-col gap-0.5 font-mono text-xs text-fg-muted">
          {failure.errors.map((error) => (
            <li key={`${error.path}:${error.message}`}>
              <span className="text-fg">{error.path}</span>: {error.message}
            </li>
          ))}
        </ul>
      )}
      <p className="text-xs text-fg-muted">
        Nothing from the file was kept.
        {failure.traceId && (
          <>
            {' '}
            <Link
              href={`/traces/${encodeURIComponent(failure.traceId)}`}
              className="text-accent hover:underline"
              data-testid="import-existing-link"
            >
              Open the trace already stored
            </Link>
          </>
        )}
      </p>
    </section>
  );
}
