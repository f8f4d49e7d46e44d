import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './http-request-resolve';

export interface OutgoingRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Sends one request to `url`, connecting only to `addresses` (already checked): the socket's
 * lookup answers from that list and never asks DNS again. TLS still verifies the certificate for
 * the URL's hostname (SNI and identity check use the name, not the address). No connection pool:
 * a pooled socket would outlive the check that admitted it. Resolves with the response head; the
 * caller reads or destroys the body. Rejects with the socket's error, or an AbortError.
 */
export function sendPinned(
  url: URL,
  outgoing: OutgoingRequest,
  addresses: ResolvedAddress[],
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const options: RequestOptions = {
    method: outgoing.method,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    headers: outgoing.headers,
    agent: false,
    lookup: pinnedLookup(addresses),
    signal,
  };
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(options, resolve);
    request.once('error', reject);
    request.end(outgoing.body);
  });
}

function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted =
      options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : [];
    const list = wanted.length > 0 ? wanted : addresses;
    const first = list[0] as ResolvedAddress;
    if (options.all)
      callback(
        null,
        list.map(({ address, family }) => ({ address, family })),
      );
    else callback(null, first.address, first.family);
  };
}
