import { describe, expect, it } from 'vitest';
import { createCommandSubject } from './command-subject';
import { createHttpSubject } from './http-subject';
import { createPathSubject, normalizePath } from './path-subject';
import { compileWildcard } from './wildcard';

describe('compileWildcard', () => {
  it('matches literally without *, and * as any text (spaces and slashes too)', () => {
    expect(compileWildcard('git status')('git status')).toBe(true);
    expect(compileWildcard('git status')('git status -s')).toBe(false);
    expect(compileWildcard('git.status')('gitxstatus')).toBe(false);
    expect(compileWildcard('a*c')('abbbc')).toBe(true);
    expect(compileWildcard('a*c')('ac')).toBe(true);
    expect(compileWildcard('a*c')('acb')).toBe(false);
    expect(compileWildcard('*b*b*')('abab')).toBe(true);
    expect(compileWildcard('*b*b*')('ab')).toBe(false);
    // The tail may not overlap what the middle parts took.
    expect(compileWildcard('a*bc*c')('abc')).toBe(false);
    expect(compileWildcard('*')('')).toBe(true);
  });

  it('stays fast on a long adversarial subject', () => {
    const match = compileWildcard('*a*a*a*a*a*b');
    const started = performance.now();
    expect(match('a'.repeat(200_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('file paths', () => {
  const subject = createPathSubject<{ path: string }>();
  const matches = (glob: string, path: string) => subject.compile(glob)(subject.of({ path }));

  it('normalizes the path the way the tool resolves it', () => {
    expect(normalizePath('./notes//a.md')).toBe('notes/a.md');
    expect(normalizePath('notes/x/../a.md')).toBe('notes/a.md');
    expect(normalizePath('notes/')).toBe('notes');
    expect(normalizePath('./')).toBe('.');
    expect(normalizePath('../outside')).toBe('../outside');
  });

  it('matches globs: * inside one folder, ** across folders, dotfiles included', () => {
    expect(matches('notes/**', 'notes/a.md')).toBe(true);
    expect(matches('notes/**', 'notes/deep/er/a.md')).toBe(true);
    expect(matches('notes/**', 'notes/.hidden')).toBe(true);
    expect(matches('notes/*', 'notes/deep/a.md')).toBe(false);
    expect(matches('*.md', 'a.md')).toBe(true);
    expect(matches('*.md', 'notes/a.md')).toBe(false);
    expect(matches('**/*.md', 'notes/a.md')).toBe(true);
    expect(matches('notes/**', 'notesX/a.md')).toBe(false);
    expect(matches('./notes/**', 'notes/a.md')).toBe(true);
  });

  it('cannot be dodged by spelling the path differently', () => {
    expect(matches('secrets/**', './secrets/key')).toBe(true);
    expect(matches('secrets/**', 'notes/../secrets/key')).toBe(true);
    expect(matches('secrets/**', 'secrets//key')).toBe(true);
    expect(matches('secrets/**', './notes/./../secrets/./key')).toBe(true);
    // Leaving notes/ through .. does not stay inside an allow rule for notes/.
    expect(matches('notes/**', 'notes/../secrets/key')).toBe(false);
    expect(matches('notes/**', 'notes/../../etc/passwd')).toBe(false);
    expect(matches('**', '../etc/passwd')).toBe(false);
  });

  it('refuses specifiers outside the workspace', () => {
    expect(() => subject.compile('/etc/**')).toThrow(/absolute/);
    expect(() => subject.compile('../**')).toThrow(/outside the workspace/);
    expect(() => subject.compile('notes/../../x')).toThrow(/outside the workspace/);
  });
});

describe('run_shell commands', () => {
  const subject = createCommandSubject<{ command: string[] }>();
  const matches = (specifier: string, command: string[]) => subject.compile(specifier)(subject.of({ command }));

  it('joins the argv with spaces and matches exactly without *', () => {
    expect(subject.of({ command: ['git', 'status', '-s'] })).toBe('git status -s');
    expect(matches('git status', ['git', 'status'])).toBe(true);
    expect(matches('git status', ['git', 'status', '-s'])).toBe(false);
    expect(matches('git status', ['git', 'statusx'])).toBe(false);
    expect(matches('git status', ['git'])).toBe(false);
  });

  it('takes a trailing " *" as any further arguments, or none', () => {
    expect(matches('npm run *', ['npm', 'run', 'build'])).toBe(true);
    expect(matches('npm run *', ['npm', 'run', 'test', '--', '--watch'])).toBe(true);
    expect(matches('npm run *', ['npm', 'run'])).toBe(true);
    expect(matches('npm run *', ['npm', 'runner'])).toBe(false);
    expect(matches('npm run *', ['npx', 'run', 'x'])).toBe(false);
  });

  it('takes * elsewhere as any text', () => {
    expect(matches('git * main', ['git', 'push', '--force', 'origin', 'main'])).toBe(true);
    expect(matches('ls*', ['lsof'])).toBe(true);
    expect(matches('ls *', ['lsof'])).toBe(false);
  });
});

describe('http_request method and URL', () => {
  const subject = createHttpSubject<{ url: string; method?: string }>();
  const matches = (specifier: string, url: string, method?: string) =>
    subject.compile(specifier)(subject.of({ url, method }));

  it('is METHOD URL, the method GET when left out, the URL normalized', () => {
    expect(subject.of({ url: 'https://API.example.com:443/a/../admin' })).toBe('GET https://api.example.com/admin');
    expect(subject.of({ url: 'https://api.example.com', method: 'post' })).toBe('POST https://api.example.com/');
  });

  it('matches the method when given, any method when not', () => {
    expect(matches('GET https://api.example.com/*', 'https://api.example.com/v1/items')).toBe(true);
    expect(matches('GET https://api.example.com/*', 'https://api.example.com/v1/items', 'DELETE')).toBe(false);
    expect(matches('get https://api.example.com/*', 'https://api.example.com/v1')).toBe(true);
    expect(matches('https://api.example.com/*', 'https://api.example.com/v1', 'DELETE')).toBe(true);
    expect(matches('POST *', 'http://anything/at/all', 'POST')).toBe(true);
  });

  it('matches the URL with * as any text, exactly without *', () => {
    expect(matches('https://api.example.com/*', 'https://api.example.com.evil.test/')).toBe(false);
    expect(matches('https://api.example.com/*', 'http://api.example.com/x')).toBe(false);
    expect(matches('https://api.example.com', 'https://api.example.com/')).toBe(true);
    expect(matches('https://api.example.com/a', 'https://api.example.com/a?b=1')).toBe(false);
    expect(matches('https://*.example.com/*', 'https://eu.example.com/x')).toBe(true);
    // `..` in the path cannot step out of the allowed prefix: the URL is judged as it will be sent.
    expect(matches('https://api.example.com/public/*', 'https://api.example.com/public/../admin')).toBe(false);
    expect(matches('https://api.example.com/admin', 'https://API.EXAMPLE.com/public/../admin')).toBe(true);
  });

  it('refuses a specifier that is not [METHOD] URL', () => {
    expect(() => subject.compile('api.example.com/*')).toThrow(/must start with http/);
    expect(() => subject.compile('GET ftp://x/*')).toThrow(/must start with http/);
  });
});
