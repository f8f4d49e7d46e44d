/** See varied-text.mjs: `chars` characters of varied text from a seeded generator. */
export function variedText(chars: number, seed?: number): string;
