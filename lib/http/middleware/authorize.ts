import type { MiddlewareHandler } from 'hono';
import { type Action, forbiddenMessage, reachOf } from '../../access/roles';
import { ApiError } from '../../errors';
import type { HttpEnv } from '../env';

/**
 * The role check, the chain's third step: may the request's principal do the route's `action`
 * (the ACTIONS table), and how far (`reach`: all, or only its own calls)? 403 FORBIDDEN naming
 * the role and the action otherwise.
 */
export function authorize(action: Action): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const { role } = c.get('principal');
    const reach = reachOf(role, action);
    if (!reach) throw new ApiError('FORBIDDEN', forbiddenMessage(role, action), { role, action });
    c.set('reach', reach);
    return next();
  };
}
