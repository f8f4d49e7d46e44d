import { describe, expect, it } from 'vitest';
import { accessProblem, isLoopbackHost, loadConfig } from './config';

const base = { port: 3000, token: null };

describe('accessProblem', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])(
    'lets %s start without a token',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
      expect(accessProblem({ ...base, host })).toBeNull();
    },
  );

  it.each(['0.0.0.0', '::', '192.168.1.20', 'devbox.lan', '128.0.0.1'])(
    'refuses %s without a token, saying how to set one',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
      const problem = accessProblem({ ...base, host });
      expect(problem).toContain('TOOLSCOPE_TOKEN is not set');
      expect(problem).toContain(`HOST is ${host}`);
      expect(problem).toContain('TOOLSCOPE_TOKEN=$(openssl rand -hex 32)');
    },
  );

  it('lets any address start with a token, and refuses a guessable one', () => {
    expect(accessProblem({ ...base, host: '0.0.0.0', token: 'a'.repeat(16) })).toBeNull();
    expect(accessProblem({ ...base, host: '127.0.0.1', token: 'short' })).toContain('at least 16 characters');
  });

  it('reads TOOLSCOPE_TOKEN from the environment, blank as unset', () => {
    expect(loadConfig({}, '/nonexistent-cwd').token).toBeNull();
    expect(loadConfig({ TOOLSCOPE_TOKEN: '  ' }, '/nonexistent-cwd').token).toBeNull();
    expect(loadConfig({ TOOLSCOPE_TOKEN: ' abc ' }, '/nonexistent-cwd').token).toBe('abc');
  });
});
