/**
 * `count` clients holding `GET /api/v1/events` open, each on its own socket, counting the
 * `finish` events it receives. Run as a child process: it says `ready` over IPC once every
 * stream has answered 200 and sent its first bytes (or failed), answers `report` with each subscriber's
 * count, and exits when the parent disconnects.
 * Like a browser, each asks for gzip. A gzipped stream's bytes are kept as they arrive and decoded
 * when a report is asked for: 200 decoders on the same two cores would take a core from the
 * server being measured (a browser decodes on its own machine).
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { isMain } from './child';

export interface SubscriberOptions {
  url: string;
  count: number;
  /** Ask for gzip (default true, as browsers do). */
  gzip?: boolean;
}

export interface SubscriberCounts {
  finishes: number[];
  /** Streams that failed to open, errored or ended before the report. */
  failed: number;
  firstError?: string;
}

const FINISH = '"type":"finish"';

/**
 * Counts occurrences of `needle` across chunks, including one split between two chunks. Works on
 * the raw bytes (no UTF-8 decoding, no copy of the chunk): 200 subscribers read hundreds of
 * megabytes a second, and the bench measures the server, not how fast its clients decode.
 */
export function createOccurrenceCounter(needle: string) {
  const pattern = Buffer.from(needle);
  const keep = pattern.length - 1;
  let tail = Buffer.alloc(0);
  let count = 0;
  return {
    push(input: Buffer | string) {
      const chunk = typeof input === 'string' ? Buffer.from(input) : input;
      // An occurrence split between earlier chunks and this one starts in `tail` and ends here.
      if (tail.length > 0) {
        const seam = Buffer.concat([tail, chunk.subarray(0, keep)]);
        for (let at = seam.indexOf(pattern); at !== -1 && at < tail.length; at = seam.indexOf(pattern, at + 1)) count++;
      }
      for (let at = chunk.indexOf(pattern); at !== -1; at = chunk.indexOf(pattern, at + pattern.length)) count++;
      // The last `keep` bytes seen, across chunks shorter than that too.
      tail =
        chunk.length >= keep
          ? Buffer.from(chunk.subarray(chunk.length - keep))
          : Buffer.concat([tail, chunk]).subarray(-keep);
    },
    get count() {
      return count;
    },
  };
}

/** A gzipped stream's bytes, kept until `decode` feeds them to its decoder (which counts what comes out). */
function createDeferredGunzip(onData: (chunk: Buffer) => void, onError: (why: string) => void) {
  const kept: Buffer[] = [];
  const gunzip = zlib.createGunzip();
  gunzip.on('data', onData);
  gunzip.on('error', (error) => onError(`gzip: ${error.message}`));
  return {
    keep: (chunk: Buffer) => kept.push(chunk),
    /** Decodes what was kept so far; resolves once its output has been counted. */
    decode: () =>
      new Promise<void>((resolve) => {
        for (const chunk of kept.splice(0)) gunzip.write(chunk);
        gunzip.flush(() => resolve());
      }),
  };
}

function subscribe({ url, count, gzip = true }: SubscriberOptions) {
  const counters = Array.from({ length: count }, () => createOccurrenceCounter(FINISH));
  const decoders: ReturnType<typeof createDeferredGunzip>[] = [];
  const counts: SubscriberCounts = { finishes: [], failed: 0 };
  const fail = (why: string) => {
    counts.failed++;
    counts.firstError ??= why;
  };
  // `ready` once every stream has opened (sent its first bytes) or failed, so a refused stream is counted, not waited for.
  let settled = 0;
  const requests = counters.map((counter) => {
    let done = false;
    let failed = false;
    const failOnce = (why: string) => {
      if (failed) return;
      failed = true;
      fail(why);
    };
    const settle = () => {
      if (done) return;
      done = true;
      if (++settled === count) process.send?.({ type: 'ready' });
    };
    const headers = { accept: 'text/event-stream', ...(gzip ? { 'accept-encoding': 'gzip' } : {}) };
    const request = http.get(url, { agent: false, headers }, (response) => {
      if (response.statusCode !== 200) {
        failOnce(`status ${response.statusCode}`);
        response.resume();
        return settle();
      }
      const decoder =
        response.headers['content-encoding'] === 'gzip'
          ? createDeferredGunzip((chunk) => counter.push(chunk), failOnce)
          : null;
      if (decoder) decoders.push(decoder);
      response.on('data', (chunk: Buffer) => {
        if (decoder) decoder.keep(chunk);
        else counter.push(chunk);
        settle();
      });
      response.on('end', () => failOnce('stream ended'));
      response.on('error', (error) => failOnce(error.message));
    });
    request.on('error', (error) => {
      failOnce(error.message);
      settle();
    });
    return request;
  });
  process.on('message', async (message: { type?: string }) => {
    if (message.type !== 'report') return;
    for (const decoder of decoders) await decoder.decode();
    process.send?.({ type: 'counts', counts: { ...counts, finishes: counters.map((counter) => counter.count) } });
  });
  process.on('disconnect', () => {
    for (const request of requests) request.destroy();
    process.exit(0);
  });
}

if (isMain(import.meta.url) && process.send && process.argv[2])
  subscribe(JSON.parse(process.argv[2]) as SubscriberOptions);
