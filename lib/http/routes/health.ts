import { credentialsOf } from '../../access/authenticator';
import { serviceHealth } from '../../server/service-health';
import { unauthenticated } from '../middleware/authenticate';
import { json } from '../respond';
import { defineRoutes } from '../route';

export default defineRoutes([
  {
    /**
     * `GET /api/v1/health`: whether Toolscope can record calls, answered 200 whatever the state
     * (reads work while the store is degraded). Public, for probes (a load balancer's has no key):
     * - without credentials where keys are in use: only `{ "status": "ok" | "degraded" }`;
     * - with any valid key or login (every role, `agent` included), and in local mode: the whole
     *   `serviceHealth` — `status`, `store` (`status`, `queued`, `last_error`, `disk_free_bytes`),
     *   `mcp` (each upstream server's state), `otel` (export on, endpoint, last failure), `vault`;
     * - with a key that is wrong or revoked: 401 UNAUTHENTICATED, as anywhere else.
     */
    method: 'GET',
    path: '/api/v1/health',
    action: null,
    handle(c, ts) {
      const auth = ts.access.authenticate(credentialsOf(c.req.raw.headers));
      if (!auth.ok) {
        if (auth.reason === 'invalid') throw unauthenticated('invalid');
        return json(c, { status: ts.store.health().status });
      }
      return json(c, serviceHealth(ts));
    },
  },
]);
