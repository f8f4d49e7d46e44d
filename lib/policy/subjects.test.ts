import { describe, expect, it } from 'vitest';
import type { PermissionSubject } from '../executor/types';
import { crowding } from '../hardening/testing/machine-pace';
import { createCommandSubject } from './command-subject';
import { createHttpSubject } from './http-subject';
import { matchSequence } from './match-sequence';
import { matchPart, readEscapes } from './part-pattern';
import { compilePathGlob } from './path-glob';
import { createPathSubject, normalizePath } from './path-subject';
import { compileToolGlob } from './tool-glob';

/** Whether `specifier` takes the call `input`, as the rule set asks. */
function matcher<I>(subject: PermissionSubject<I>) {
  return (specifier: string, input: I) => subject.compile(specifier)(subject.of(input), input);
}

/** `fn` with its time in ms (the bounds on it stretch by the machine's crowding: `crowding()`). */
function timed<T>(fn: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
}

describe('one part: * within it, \\ escapes', () => {
  it('reads escapes, refusing a \\ before a letter or digit, or at the end', () => {
    expect(readEscapes('a\\*\\\\')).toEqual([
      { char: 'a', special: true },
      { char: '*', special: false },
      { char: '\\', special: false },
    ]);
    expect(() => readEscapes('a\\n')).toThrow(/"\\n" is no escape/);
    expect(() => readEscapes('a\\')).toThrow(/lone "\\"/);
  });

  it('places each literal run at its first fit, and keeps excluded characters out of a *', () => {
    expect(matchPart(['a', 'c'], 'abbbc')).toBe(true);
    expect(matchPart(['a', 'c'], 'acb')).toBe(false);
    expect(matchPart(['', 'b', 'b', ''], 'abab')).toBe(true);
    expect(matchPart(['', 'b', 'b', ''], 'ab')).toBe(false);
    // The tail may not overlap what the middle runs took.
    expect(matchPart(['a', 'bc', 'c'], 'abc')).toBe(false);
    expect(matchPart(['', '.example.com'], 'a.b.example.com', ':/@')).toBe(true);
    expect(matchPart(['', '.example.com'], 'a@b.example.com', ':/@')).toBe(false);
    expect(matchPart(['', ''], '[::1]', ':/@')).toBe(false);
  });

  it('stays linear on long adversarial subjects', () => {
    const star = timed(() => matchPart(['', 'a', 'a', 'a', 'a', 'a', 'b'], 'a'.repeat(200_000)));
    expect(star.value).toBe(false);
    expect(star.ms).toBeLessThan(200 * crowding());
    const words = ['x', ...Array.from({ length: 20 }, () => ['', 'a', 'a', 'b']), 'y'];
    const sequence = timed(() =>
      matchSequence(
        [words.slice(0, 1), ...words.slice(1, -1).map((w) => [w]), []],
        Array(20_000).fill('aaaa'),
        (p, item) => matchPart(p as string[], item),
      ),
    );
    expect(sequence.value).toBe(false);
    expect(sequence.ms).toBeLessThan(500 * crowding());
  });
});

describe('file paths', () => {
  const subject = createPathSubject<{ path: string }>();
  const match = matcher(subject);
  const matches = (glob: string, path: string) => match(glob, { path });

  it('normalizes the path the way the tool resolves it', () => {
    expect(normalizePath('./notes//a.md')).toBe('notes/a.md');
    expect(normalizePath('notes/x/../a.md')).toBe('notes/a.md');
    expect(normalizePath('notes/')).toBe('notes');
    expect(normalizePath('./')).toBe('.');
    expect(normalizePath('../outside')).toBe('../outside');
  });

  it('matches globs: * inside one folder, ** across folders (none too), dotfiles included', () => {
    expect(matches('notes/**', 'notes/a.md')).toBe(true);
    expect(matches('notes/**', 'notes/deep/er/a.md')).toBe(true);
    expect(matches('notes/**', 'notes/.hidden')).toBe(true);
    expect(matches('notes/**', 'notes')).toBe(true);
    expect(matches('notes/*', 'notes/deep/a.md')).toBe(false);
    expect(matches('*.md', 'a.md')).toBe(true);
    expect(matches('*.md', '.md')).toBe(true);
    expect(matches('*.md', 'notes/a.md')).toBe(false);
    expect(matches('**/*.md', 'notes/a.md')).toBe(true);
    expect(matches('**/*.md', 'a.md')).toBe(true);
    expect(matches('src/**/test/*.ts', 'src/a/b/test/x.ts')).toBe(true);
    expect(matches('src/**/test/*.ts', 'src/test/x.ts')).toBe(true);
    expect(matches('src/**/test/*.ts', 'src/test/a/x.ts')).toBe(false);
    expect(matches('notes/**', 'notesX/a.md')).toBe(false);
    expect(matches('./notes/**', 'notes/a.md')).toBe(true);
    expect(matches('**', '.')).toBe(true);
  });

  it('takes \\ as making the next character literal', () => {
    expect(matches('w/\\*', 'w/*')).toBe(true);
    expect(matches('w/\\*', 'w/other.txt')).toBe(false);
    expect(matches('a\\\\b', 'a\\b')).toBe(true);
    expect(matches('what\\?.md', 'what?.md')).toBe(true);
    expect(matches('\\[draft\\] *.md', '[draft] plan.md')).toBe(true);
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
    expect(matches('*/passwd', '../passwd')).toBe(false);
    expect(matches('**', '/etc/passwd')).toBe(false);
  });

  it('refuses specifiers outside the workspace', () => {
    expect(() => subject.compile('/etc/**')).toThrow(/absolute/);
    expect(() => subject.compile('../**')).toThrow(/outside the workspace/);
    expect(() => subject.compile('notes/../../x')).toThrow(/outside the workspace/);
  });

  it('refuses glob syntax it does not have, saying how to write it literally', () => {
    expect(() => subject.compile('notes/{a,b}.md')).toThrow(/braces .* "\\\{" for a literal/);
    expect(() => subject.compile('notes/[ab].md')).toThrow(/character classes .* "\\\[" for a literal/);
    expect(() => subject.compile('notes/+(a|b).md')).toThrow(/extglob "\+\(…\)" is not supported/);
    expect(() => subject.compile('notes/*(a).md')).toThrow(/extglob "\*\(…\)"/);
    expect(() => subject.compile('notes/@(a).md')).toThrow(/extglob "@\(…\)"/);
    expect(() => subject.compile('notes/!(a).md')).toThrow(/extglob "!\(…\)"/);
    expect(() => subject.compile('notes/a?.md')).toThrow(/"\?" \(any one character\) is not supported/);
    expect(() => subject.compile('!secrets/**')).toThrow(/negation/);
    expect(() => subject.compile('notes/a**.md')).toThrow(/"\*\*" means nothing more than "\*" in a path segment/);
    expect(() => subject.compile('a\\b')).toThrow(/"\\b" is no escape/);
    // Written literally, they are characters like others.
    expect(matches('notes/\\{a,b}.md', 'notes/{a,b}.md')).toBe(true);
    expect(matches('notes/a+\\(1).md', 'notes/a+(1).md')).toBe(true);
    expect(matches('\\!important.md', '!important.md')).toBe(true);
  });

  it('refuses the extglob that stalled picomatch, and matches long subjects in linear time', () => {
    // picomatch compiled `+(*a)x` to a backtracking regular expression: 28 characters took seconds.
    expect(() => subject.compile('+(*a)x')).toThrow(/extglob/);
    const deep = timed(() => matches('**/*a*a*a*a*a*b/**/x', `${'a/'.repeat(2_000)}${'a'.repeat(50_000)}`));
    expect(deep.value).toBe(false);
    expect(deep.ms).toBeLessThan(500 * crowding());
  });

  it('compiles absolute globs for absolute paths only (upstream servers)', () => {
    expect(compilePathGlob('/srv/docs/*.md')('/srv/docs/x.md')).toBe(true);
    expect(compilePathGlob('/srv/docs/*.md')('srv/docs/x.md')).toBe(false);
    expect(compilePathGlob('/srv/**')('/srv')).toBe(true);
    expect(compilePathGlob('/**')('/etc/passwd')).toBe(true);
    expect(compilePathGlob('../shared/*')('../shared/a')).toBe(true);
    expect(compilePathGlob('*/shared/*')('../shared/a')).toBe(false);
  });

  it('names a path exactly, its glob characters escaped', () => {
    for (const path of ['w/*', 'notes/a.md', 'w/[x]{y}?.md', 'back\\slash', '!bang', ' lead', 'a+(b)']) {
      const exact = subject.exact?.({ path }) as string;
      expect(matches(exact, path), exact).toBe(true);
    }
    expect(subject.exact?.({ path: './w//*' })).toBe('w/\\*');
    expect(matches('w/\\*', 'w/other.txt')).toBe(false);
    expect(matches(subject.exact?.({ path: 'w/[x]{y}?.md' }) as string, 'w/x{y}a.md')).toBe(false);
  });
});

describe('run_shell commands', () => {
  const subject = createCommandSubject<{ command: string[] }>();
  const match = matcher(subject);
  const matches = (specifier: string, command: string[]) => match(specifier, { command });

  it('shows the argv joined with spaces and matches exactly without *', () => {
    expect(subject.of({ command: ['git', 'status', '-s'] })).toBe('git status -s');
    expect(matches('git status', ['git', 'status'])).toBe(true);
    expect(matches('git  status', ['git', 'status'])).toBe(true);
    expect(matches('git status', ['git', 'status', '-s'])).toBe(false);
    expect(matches('git status', ['git', 'statusx'])).toBe(false);
    expect(matches('git status', ['git'])).toBe(false);
  });

  it('keeps argument boundaries: one word is one argument', () => {
    expect(matches('git a b', ['git', 'a b'])).toBe(false);
    expect(matches('git "a b"', ['git', 'a b'])).toBe(true);
    expect(matches("git 'a b'", ['git', 'a b'])).toBe(true);
    expect(matches('git "a b"', ['git', 'a', 'b'])).toBe(false);
    expect(matches('git --msg="a b"', ['git', '--msg=a b'])).toBe(true);
    expect(matches('echo *', ['echo', 'a b'])).toBe(true);
  });

  it('takes a lone * as any number of whole arguments, none included, anywhere', () => {
    expect(matches('npm run *', ['npm', 'run', 'build'])).toBe(true);
    expect(matches('npm run *', ['npm', 'run', 'test', '--', '--watch'])).toBe(true);
    expect(matches('npm run *', ['npm', 'run'])).toBe(true);
    expect(matches('npm run *', ['npm', 'runner'])).toBe(false);
    expect(matches('npm run *', ['npx', 'run', 'x'])).toBe(false);
    expect(matches('git * main', ['git', 'push', '--force', 'origin', 'main'])).toBe(true);
    expect(matches('git * main', ['git', 'main'])).toBe(true);
    expect(matches('git * main', ['git', 'push', 'main', 'x'])).toBe(false);
  });

  it('catches a subcommand wherever options put it: git * push *', () => {
    const deny = 'git * push *';
    expect(matches(deny, ['git', 'push'])).toBe(true);
    expect(matches(deny, ['git', 'push', 'origin', 'main'])).toBe(true);
    expect(matches(deny, ['git', '-c', 'k=v', 'push', 'origin'])).toBe(true);
    expect(matches(deny, ['git', '-C', 'dir', 'push'])).toBe(true);
    expect(matches(deny, ['git', 'status'])).toBe(false);
    expect(matches(deny, ['git', 'pushx'])).toBe(false);
    // `git push *` names the argument right after `git`, so options before `push` escape it.
    expect(matches('git push *', ['git', 'push'])).toBe(true);
    expect(matches('git push *', ['git', 'push', 'origin', 'main'])).toBe(true);
    expect(matches('git push *', ['git', '-C', 'dir', 'push'])).toBe(false);
  });

  it('takes * inside a word as characters within that one argument', () => {
    expect(matches('ls*', ['lsof'])).toBe(true);
    expect(matches('ls *', ['lsof'])).toBe(false);
    expect(matches('tool --out=*', ['tool', '--out=x.txt'])).toBe(true);
    expect(matches('tool --out=*', ['tool', '--out=', 'x.txt'])).toBe(false);
    expect(matches('tool --out=*', ['tool', '--out=a b'])).toBe(true);
    expect(matches('git *push*', ['git', 'a', 'push'])).toBe(false);
  });

  it('writes literally what is quoted or escaped', () => {
    expect(matches('echo "*"', ['echo', '*'])).toBe(true);
    expect(matches('echo "*"', ['echo', 'x'])).toBe(false);
    expect(matches('echo \\*', ['echo', '*'])).toBe(true);
    expect(matches('echo \\*', ['echo', 'x'])).toBe(false);
    expect(matches('find . -exec rm "{}" ;', ['find', '.', '-exec', 'rm', '{}', ';'])).toBe(true);
    expect(matches('say "he said \\"hi\\""', ['say', 'he said "hi"'])).toBe(true);
    expect(matches('a\\ b', ['a b'])).toBe(true);
  });

  it('refuses a bad command specifier', () => {
    expect(() => subject.compile('echo "a b')).toThrow(/not closed/);
    expect(() => subject.compile('git ** push')).toThrow(/"\*\*" means nothing more than "\*" in an argument/);
    expect(() => subject.compile('find -exec {} ;')).toThrow(/braces/);
    expect(() => subject.compile('ls +(a|b)')).toThrow(/extglob/);
    expect(() => subject.compile('ls [ab]')).toThrow(/character classes/);
  });

  it('matches many arguments against many words without backtracking', () => {
    const specifier = `git ${'* a '.repeat(30)}* b`;
    const result = timed(() => matches(specifier, ['git', ...Array(20_000).fill('a')]));
    expect(result.value).toBe(false);
    expect(result.ms).toBeLessThan(500 * crowding());
  });

  it('names an argv exactly, quoting what needs it', () => {
    const cases = [
      ['git', 'status'],
      ['git', 'a b'],
      ['echo', '*'],
      ['echo', ''],
      ['say', 'he said "hi"', "it's"],
      ['printf', 'a\\n'],
      ['find', '.', '-name', '*.[ch]', '-exec', 'rm', '{}', ';'],
    ];
    for (const command of cases) {
      const exact = subject.exact?.({ command }) as string;
      expect(matches(exact, command), exact).toBe(true);
    }
    expect(subject.exact?.({ command: ['git', 'a b'] })).toBe('git "a b"');
    expect(subject.exact?.({ command: ['echo', '*'] })).toBe('echo "*"');
    expect(matches('git "a b"', ['git', 'a', 'b'])).toBe(false);
    expect(matches('echo "*"', ['echo', 'other'])).toBe(false);
    expect(matches(subject.exact?.({ command: ['git', 'status'] }) as string, ['git', 'status', '-s'])).toBe(false);
  });
});

describe('http_request method and URL', () => {
  const subject = createHttpSubject<{ url: string; method?: string }>();
  const match = matcher(subject);
  const matches = (specifier: string, url: string, method?: string) => match(specifier, { url, method });

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

  it('never lets a host * reach past the host: userinfo, path and query cannot stand in for it', () => {
    const rule = 'POST http://*.example.com/*';
    expect(matches(rule, 'http://a.example.com/x', 'POST')).toBe(true);
    expect(matches(rule, 'http://a.b.example.com/', 'POST')).toBe(true);
    expect(matches(rule, 'http://127.0.0.1/?x=.example.com/', 'POST')).toBe(false);
    expect(matches(rule, 'http://a.example.com@127.0.0.1/', 'POST')).toBe(false);
    expect(matches(rule, 'http://u:p@a.example.com@127.0.0.1/', 'POST')).toBe(false);
    expect(matches(rule, 'http://127.0.0.1/.example.com/', 'POST')).toBe(false);
    expect(matches(rule, 'http://127.0.0.1#.example.com/', 'POST')).toBe(false);
    expect(matches(rule, 'http://a.example.com:8080/', 'POST')).toBe(false);
    expect(matches(rule, 'http://example.com.evil.test/', 'POST')).toBe(false);
    // Userinfo is not part of what a rule names: the host is.
    expect(matches(rule, 'http://user@a.example.com/x', 'POST')).toBe(true);
    expect(matches('https://*/', 'https://[::1]/')).toBe(false);
    expect(matches('https://[::1]/', 'https://[::1]/')).toBe(true);
  });

  it('matches scheme, host, port, path and query part by part', () => {
    expect(matches('https://api.example.com/*', 'https://api.example.com.evil.test/')).toBe(false);
    expect(matches('https://api.example.com/*', 'http://api.example.com/x')).toBe(false);
    expect(matches('*://api.example.com/*', 'http://api.example.com/x')).toBe(true);
    expect(matches('*://api.example.com/*', 'https://api.example.com/x')).toBe(true);
    // Without a path, any path and query on that origin (URLPattern); with one, that path.
    expect(matches('https://api.example.com', 'https://api.example.com/')).toBe(true);
    expect(matches('https://api.example.com', 'https://api.example.com/a/b?c=1')).toBe(true);
    expect(matches('https://*.evil.test', 'https://www.evil.test/x')).toBe(true);
    expect(matches('https://api.example.com', 'https://api.example.com:8443/')).toBe(false);
    expect(matches('https://api.example.com/', 'https://api.example.com/a')).toBe(false);
    expect(matches('https://api.example.com/a', 'https://api.example.com/a/b')).toBe(false);
    expect(matches('https://*.example.com/*', 'https://eu.example.com/x')).toBe(true);
    expect(matches('https://api.example.com./*', 'https://api.example.com/x')).toBe(true);
    expect(matches('https://api.example.com/*', 'https://api.example.com./x')).toBe(true);
    // Ports: left out, the default only; written, that port (the default normalized); * any.
    expect(matches('https://api.example.com/*', 'https://api.example.com:443/x')).toBe(true);
    expect(matches('https://api.example.com/*', 'https://api.example.com:8443/x')).toBe(false);
    expect(matches('https://api.example.com:443/*', 'https://api.example.com/x')).toBe(true);
    expect(matches('https://api.example.com:8443/*', 'https://api.example.com:8443/x')).toBe(true);
    expect(matches('https://api.example.com:*/*', 'https://api.example.com:8443/x')).toBe(true);
    expect(matches('https://api.example.com:*/*', 'https://api.example.com/x')).toBe(true);
    expect(matches('*://api.example.com/*', 'http://api.example.com:443/x')).toBe(false);
    // The path's * crosses "/", as in URLPattern; ** means the same.
    expect(matches('https://api.example.com/v1/*', 'https://api.example.com/v1/a/b/c')).toBe(true);
    expect(matches('https://api.example.com/v1/**', 'https://api.example.com/v1/a/b')).toBe(true);
    expect(matches('https://api.example.com/v1/*/items', 'https://api.example.com/v1/a/items')).toBe(true);
    // `..` in the path cannot step out of the allowed prefix: the URL is judged as it will be sent.
    expect(matches('https://api.example.com/public/*', 'https://api.example.com/public/../admin')).toBe(false);
    expect(matches('https://api.example.com/public/*', 'https://api.example.com/public/%2e%2e/admin')).toBe(false);
    expect(matches('https://api.example.com/admin', 'https://API.EXAMPLE.com/public/../admin')).toBe(true);
  });

  it('matches any query without "?", and the query written after one', () => {
    expect(matches('https://api.example.com/admin', 'https://api.example.com/admin?x=1')).toBe(true);
    expect(matches('https://api.example.com/*', 'https://api.example.com/a?b=1')).toBe(true);
    expect(matches('https://api.example.com/a?', 'https://api.example.com/a?b=1')).toBe(false);
    expect(matches('https://api.example.com/a?', 'https://api.example.com/a')).toBe(true);
    expect(matches('https://api.example.com/a?page=*', 'https://api.example.com/a?page=2')).toBe(true);
    expect(matches('https://api.example.com/a?page=*', 'https://api.example.com/a?page=2&all=1')).toBe(true);
    expect(matches('https://api.example.com/a?page=*', 'https://api.example.com/a?all=1&page=2')).toBe(false);
    expect(matches('https://api.example.com/a\\?b', 'https://api.example.com/a%3Fb')).toBe(true);
    expect(matches('https://api.example.com/a\\*', 'https://api.example.com/a*')).toBe(true);
    expect(matches('https://api.example.com/a\\*', 'https://api.example.com/ab')).toBe(false);
  });

  it('refuses a specifier that is not [METHOD] URL, or uses what it does not match', () => {
    expect(() => subject.compile('api.example.com/*')).toThrow(/must start with http/);
    expect(() => subject.compile('GET ftp://x/*')).toThrow(/must start with http/);
    expect(() => subject.compile('https://user@api.example.com/*')).toThrow(/userinfo/);
    expect(() => subject.compile('https://api.example.com/#top')).toThrow(/fragment/);
    expect(() => subject.compile('https://api.example.com/{a,b}')).toThrow(/groups "\{…\}"/);
    expect(() => subject.compile('https://api.example.com/books/:id')).toThrow(/named groups/);
    expect(() => subject.compile('https://api.example.com:8o/')).toThrow(/port/);
    expect(() => subject.compile('https://api.example.com:99999/')).toThrow(/port/);
    expect(() => subject.compile('https:///x')).toThrow(/no host/);
    expect(() => subject.compile('https://x/a/*/../b')).toThrow(/does not survive/);
    expect(() => subject.compile('https://bü*cher.de/')).toThrow(/punycode/);
    expect(() => subject.compile('https://10.0.*.1/')).toThrow(/reads as an IP address/);
    expect(matches('https://*.bücher.de/*', 'https://shop.BÜCHER.de/x')).toBe(true);
    expect(matches('https://x.test/v1/models/m\\:run', 'https://x.test/v1/models/m:run')).toBe(true);
    expect(matches('https://x.test/v1/models/m:run', 'https://x.test/v1/models/m:run')).toBe(true);
  });

  it('names a call exactly: METHOD URL with * escaped and the query pinned', () => {
    const calls = [
      { url: 'https://api.example.com/a*', method: 'post' },
      { url: 'https://api.example.com/v1/items?page=2&q={x}' },
      { url: 'https://API.example.com:8443/a/../b/:id' },
      { url: 'http://user:pw@[::1]:8080/x?y=\\z' },
      { url: 'https://api.example.com' },
    ];
    for (const call of calls) {
      const exact = subject.exact?.(call) as string;
      expect(match(exact, call), exact).toBe(true);
    }
    expect(subject.exact?.({ url: 'https://api.example.com/a*', method: 'post' })).toBe(
      'POST https://api.example.com/a\\*?',
    );
    expect(matches('POST https://api.example.com/a\\*?', 'https://api.example.com/ab', 'POST')).toBe(false);
    expect(matches('POST https://api.example.com/a\\*?', 'https://api.example.com/a*?x=1', 'POST')).toBe(false);
    expect(matches('POST https://api.example.com/a\\*?', 'https://api.example.com/a*', 'GET')).toBe(false);
  });
});

describe("fault rules' tool globs", () => {
  it('matches names, * as any characters of the name', () => {
    expect(compileToolGlob('http_*')('http_request')).toBe(true);
    expect(compileToolGlob('http_*')('xhttp_request')).toBe(false);
    expect(compileToolGlob('fs__*_file')('fs__read_text_file')).toBe(true);
    expect(compileToolGlob('echo')('echo')).toBe(true);
    expect(compileToolGlob('echo')('echo2')).toBe(false);
  });

  it('refuses what it does not have, and never backtracks', () => {
    expect(() => compileToolGlob('fs__{read,write}')).toThrow(/braces/);
    expect(() => compileToolGlob('+(*a)x')).toThrow(/extglob/);
    expect(() => compileToolGlob('!echo')).toThrow(/negation/);
    const result = timed(() => compileToolGlob('*a*a*a*a*a*x')('a'.repeat(100_000)));
    expect(result.value).toBe(false);
    expect(result.ms).toBeLessThan(200 * crowding());
  });
});
