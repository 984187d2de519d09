// Lengths in code points: what the order copy's bounds count (an emoji is one code point, or several
// joined; a decomposed `é` is two), unlike String#length, which counts UTF-16 units.

export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
