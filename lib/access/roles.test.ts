import { describe, expect, it } from 'vitest';
import { ACTIONS, type Action, forbiddenMessage, isRole, ROLES, reachOf } from './roles';

/**
 * The roles table: every action has at least admin; an agent reaches only running calls, listing
 * tools and reading its own calls and approvals; each role reaches at least what the one below it
 * does (agent aside); and a 403's message names the role and the action.
 */

const actions = Object.keys(ACTIONS) as Action[];

describe('roles', () => {
  it('lets an admin do every action, on everything', () => {
    for (const action of actions) expect(reachOf('admin', action), action).toBe('all');
  });

  it('lets an agent run calls, list tools, and read only its own calls and approvals', () => {
    const reach = Object.fromEntries(
      actions.map((action) => [action, reachOf('agent', action)]).filter(([, reach]) => reach !== null),
    );
    expect(reach).toEqual({
      'calls.run': 'all',
      'tools.list': 'all',
      'calls.read': 'own',
      'approvals.read': 'own',
    });
    expect(reachOf('agent', 'approvals.decide')).toBeNull();
    expect(reachOf('agent', 'keys.manage')).toBeNull();
  });

  it('lets a viewer read and a reviewer also decide, replay, cancel and reset breakers, but neither change rules or keys', () => {
    for (const action of ['pages.read', 'calls.read', 'sessions.read', 'audit.read', 'policy.read'] as const) {
      expect(reachOf('viewer', action), action).toBe('all');
      expect(reachOf('reviewer', action), action).toBe('all');
    }
    for (const action of ['approvals.decide', 'calls.replay', 'calls.cancel', 'circuits.reset'] as const) {
      expect(reachOf('viewer', action), action).toBeNull();
      expect(reachOf('reviewer', action), action).toBe('all');
    }
    for (const action of ['policy.write', 'faults.write', 'keys.manage', 'calls.delete', 'calls.import'] as const) {
      expect(reachOf('reviewer', action), action).toBeNull();
    }
  });

  it('gives each person role at least what the role below it has', () => {
    const people = ['viewer', 'reviewer', 'admin'] as const;
    for (const action of actions) {
      for (let i = 1; i < people.length; i++) {
        const lower = reachOf(people[i - 1] as (typeof people)[number], action);
        const higher = reachOf(people[i] as (typeof people)[number], action);
        if (lower !== null) expect(higher, `${people[i]} ${action}`).toBe('all');
      }
    }
  });

  it('names the role and the action in a 403', () => {
    expect(forbiddenMessage('viewer', 'approvals.decide')).toBe(
      'The role viewer may not decide approvals (approvals.decide).',
    );
    for (const role of ROLES) {
      for (const action of actions) {
        const message = forbiddenMessage(role, action);
        expect(message).toContain(role);
        expect(message).toContain(action);
        expect(message).toContain(ACTIONS[action].says);
      }
    }
  });

  it('knows a role from anything else', () => {
    for (const role of ROLES) expect(isRole(role)).toBe(true);
    for (const value of ['Admin', 'root', '', null, undefined, 3, { role: 'admin' }]) expect(isRole(value)).toBe(false);
  });
});
