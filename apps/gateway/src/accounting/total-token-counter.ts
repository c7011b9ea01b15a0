/**
 * A token counter that takes any text and costs time linear in it, around gpt-tokenizer's o200k count.
 *
 * Two things in the library make a plain `countTokens(text)` unfit for text a client sent. It throws on
 * special-token strings (`<|endoftext|>`, `<|im_start|>`...) unless told otherwise: a prompt quoting one
 * was counted as a failure, and the failure was billed as nothing. And its byte-pair merge is quadratic in
 * the length of one piece of the pre-split (a "word": a run of letters, of punctuation, of spaces): one
 * 40,000-character word took 1.2 s, one of 300,000 never finished. Here special tokens count as the text
 * they are made of (what an upstream that reads them as text bills), and a piece longer than
 * LONG_PIECE_CHARACTERS is counted by the linear rule (its UTF-8 bytes / 4, rounded up), so that a count
 * costs O(n) whatever the text; real text has no pieces that long (words, numbers of three digits, runs of
 * spaces), so its count is the library's.
 */

/** Longest piece of the pre-split given to the byte-pair merge; longer ones are counted by the linear rule. */
export const LONG_PIECE_CHARACTERS = 1_000;
/**
 * Entries kept in the library's merge cache (100,000 by default): each key is a piece of up to
 * LONG_PIECE_CHARACTERS, so the default let a client park ~200 MB of distinct pieces in it.
 */
export const MERGE_CACHE_ENTRIES = 10_000;

export type Counter = (text: string) => number;

/** What the counter needs of gpt-tokenizer: its count, with options, and its pre-split pattern. */
export interface TokenizerLibrary {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  splitPattern: RegExp;
}

/** An empty disallowed set: special-token strings are neither refused nor read as special tokens, only as text. */
const specialTokensAsText = { disallowedSpecial: new Set<string>() };

/** UTF-8 length of a string without encoding it (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/** The linear rule: about four bytes a token, as byte-pair vocabularies average on text, never less than 1 for text. */
export function linearTokenEstimate(text: string): number {
  return Math.ceil(utf8Length(text) / 4);
}

/** JavaScript's `\s` (WhiteSpace and LineTerminator), which the pre-split's `\s` classes match. */
export function isWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Whether the pre-split could yield a piece longer than `limit`, in one pass without a regex. Every piece of
 * the o200k pattern is either whitespace only, or one leading character followed by characters that are
 * not whitespace or are line breaks (letters, punctuation, then `[\r\n/]*`); so no piece is longer than one
 * plus the longest run of either kind.
 */
export function mayHaveLongPiece(text: string, limit: number): boolean {
  if (text.length <= limit) return false;
  let spaces = 0;
  let others = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (isWhitespace(code)) {
      spaces++;
      others = code === 0x0a || code === 0x0d ? others + 1 : 0;
    } else {
      others++;
      spaces = 0;
    }
    if (spaces >= limit || others >= limit) return true;
  }
  return false;
}

/**
 * The counter: the library's count with special tokens as text, except that pieces of the pre-split longer
 * than LONG_PIECE_CHARACTERS are counted by the linear rule. It does not throw: should the library fail on
 * some text, that text is counted by the linear rule.
 */
export function createTotalCounter(library: TokenizerLibrary): Counter {
  const libraryCount = (text: string): number => {
    if (!text) return 0;
    try {
      return library.countTokens(text, specialTokensAsText);
    } catch {
      return linearTokenEstimate(text);
    }
  };
  return (text: string): number => {
    if (typeof text !== "string" || text.length === 0) return 0;
    if (!mayHaveLongPiece(text, LONG_PIECE_CHARACTERS)) return libraryCount(text);
    // The text between long pieces goes to the library whole, which splits it the same way again.
    let total = 0;
    let start = 0;
    for (const match of text.matchAll(library.splitPattern)) {
      const piece = match[0];
      if (piece.length <= LONG_PIECE_CHARACTERS) continue;
      total += libraryCount(text.slice(start, match.index)) + linearTokenEstimate(piece);
      start = match.index + piece.length;
    }
    return total + libraryCount(start === 0 ? text : text.slice(start));
  };
}

/** Loads gpt-tokenizer (o200k_base) and returns the total counter over it. */
export async function loadTotalCounter(): Promise<Counter> {
  const [tokenizer, patterns] = await Promise.all([import("gpt-tokenizer"), import("gpt-tokenizer/encodingParams/constants")]);
  tokenizer.setMergeCacheSize(MERGE_CACHE_ENTRIES);
  return createTotalCounter({ countTokens: tokenizer.countTokens, splitPattern: patterns.O200K_TOKEN_SPLIT_REGEX });
}
