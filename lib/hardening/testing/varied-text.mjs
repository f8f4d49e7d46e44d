/**
 * `chars` characters of varied text (words of a seeded generator, not one repeated letter): as
 * much work for redaction, truncation and the search index as real output of that size. The
 * same seed gives the same text.
 * @param {number} chars
 * @param {number} [seed]
 * @returns {string}
 */
export function variedText(chars, seed = 12345) {
  const parts = [];
  let length = 0;
  let state = seed;
  while (length < chars) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const word = `${state.toString(36)} `;
    parts.push(word);
    length += word.length;
  }
  return parts.join('').slice(0, chars);
}
