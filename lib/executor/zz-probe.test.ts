import { it } from 'vitest';
import { createRedactor } from './redact';
const r = createRedactor();
const gens: Record<string, (n: number) => string> = {
  'pem begin A-run repeated': (n) => ('-----BEGIN ' + 'A'.repeat(64)).repeat(n / 75),
  'pem full header then END-runs': (n) => '-----BEGIN RSA PRIVATE KEY-----' + ('-----END ' + 'A '.repeat(30)).repeat(n / 70),
  'pem header no end + newline': (n) => '-----BEGIN RSA PRIVATE KEY-----\n' + 'A'.repeat(n),
  'pem headers repeated': (n) => '-----BEGIN RSA PRIVATE KEY-----'.repeat(n / 31),
  'bearer spaces repeated': (n) => ('Bearer' + ' '.repeat(60) + '!').repeat(n / 67),
  'bearer tab/newline': (n) => 'Bearer' + '\t\n '.repeat(n / 3),
  'bearer short tokens': (n) => 'Bearer abcdefg '.repeat(n / 15),
  'sk- a- pairs': (n) => 'sk-' + 'a-'.repeat(n / 2),
  'sk- short': (n) => ' sk-aaaaaaaaaaaaaaa'.repeat(n / 19),
  'sk- a- then !': (n) => ('sk-' + 'a-'.repeat(7) + '!').repeat(n / 18),
  'sk- pairs with _': (n) => 'sk-' + 'a-'.repeat(n / 2) + '_',
  'ghp run then _': (n) => 'ghp_' + 'a'.repeat(n) + '_',
  'github_pat run': (n) => ('-github_pat_' + 'a'.repeat(19) + '!').repeat(n / 32),
  'AKIA': (n) => ' AKIAAAAAAAAAAAAAAAA'.repeat(n / 20),
  'eyJ dots': (n) => '.eyJaaaaa'.repeat(n / 9),
  'eyJ two segs': (n) => ('eyJaaaaa.eyJaaaaa.' ).repeat(n / 18),
  'eyJ long seg no dot': (n) => ' eyJ' + 'a'.repeat(n) ,
  'url userinfo many': (n) => ('://' + 'a'.repeat(250) + ':' + 'b'.repeat(2000)).repeat(n / 2254),
  'url userinfo colon b': (n) => ('://a:' + 'b:'.repeat(1000)).repeat(n / 2005),
  'url param long names': (n) => ('?' + 'a'.repeat(63)).repeat(n / 64),
  'url param eq': (n) => '?a=&b=;c=#d='.repeat(n / 12),
  'mixed hint': (n) => 'sk-Bearer eyJ AKIA ghp_ ://@?&=;#'.repeat(n / 33),
  'secret key 160K as value': (n) => 'x'.repeat(n),
};
it('probe', () => {
  for (const [name, gen] of Object.entries(gens)) {
    const times = [256 * 1024, 1024 * 1024].map((n) => {
      const text = gen(n);
      const t = performance.now();
      r.redact({ text, nested: [text] });
      r.scrubText(text, ['abcd', text.slice(0, 100)]);
      return performance.now() - t;
    });
    console.log(name.padEnd(34), times.map((t) => t.toFixed(0).padStart(6)).join(' '));
  }
  // secrets scrubbing: many secrets x big text
  const secrets = Array.from({ length: 5000 }, (_, i) => `secret${i}x`);
  const text = 'a'.repeat(1024 * 1024);
  let t = performance.now(); r.scrubText(text, secrets); console.log('5000 secrets x 1MiB', (performance.now() - t).toFixed(0));
  const big = 'a'.repeat(160 * 1024);
  t = performance.now(); r.scrubText('b' + 'a'.repeat(1024*1024), ['b' + big.slice(1) , 'a'.repeat(80*1024)+'b']); console.log('long needle', (performance.now() - t).toFixed(0));
  const obj: Record<string, string> = {}; for (let i = 0; i < 20000; i++) obj[`password${i}`] = `v${i}abcd`;
  t = performance.now(); const { secrets: s2 } = r.redact(obj); r.scrubValue({ out: Object.values(obj) }, s2); console.log('20000 secret keys scrubValue', (performance.now() - t).toFixed(0));
}, 600000);
