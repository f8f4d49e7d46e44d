import { IncomingMessage } from 'node:http';
import { ApiError } from '../errors';
import { type BodyLimits, readNodeBody, tooLarge } from './read-body';

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Bounds a request the HTTP layer hands to Next.js (a page, a server action), whose proxy reads a body whole before any
 * route sees it (up to `proxyClientMaxBodySize`, far above our limits):
 * 1. GET and HEAD carry no body: 400 (Next would answer its own empty 400);
 * 2. a declared `Content-Length` over the limit: 413, before a byte of the body is read;
 * 3. a body without a declared length (chunked) is read here, cut at the limit (413), and handed
 *    on as a request of the same socket with its length declared.
 * Next then reads at most `maxBytes` however the body came. Rejects with an `ApiError`.
 */
export async function boundedForNext(req: IncomingMessage, limits: BodyLimits): Promise<IncomingMessage> {
  if (!hasBody(req)) return req;
  if (req.method === 'GET' || req.method === 'HEAD') {
    throw new ApiError('BODY_NOT_ALLOWED', `A ${req.method} request carries no body.`);
  }
  if (req.headers['transfer-encoding'] === undefined) {
    if (Number(req.headers['content-length']) > limits.maxBytes) throw tooLarge(limits.maxBytes);
    return req;
  }
  const body = await readNodeBody(req, limits);
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  const headers = { ...req.headers, 'content-length': String(body.length) };
  delete headers['transfer-encoding'];
  copy.headers = headers;
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] as string).toLowerCase();
    if (name !== 'transfer-encoding' && name !== 'content-length') raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  raw.push('Content-Length', String(body.length));
  copy.rawHeaders = raw;
  copy.push(body);
  copy.push(null);
  copy.complete = true;
  return copy;
}
