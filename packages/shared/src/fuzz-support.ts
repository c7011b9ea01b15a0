/**
 * Test support for the fuzz tests of parsers and translators (imported by tests only): a seeded PRNG, so a
 * failing case is replayed by its seed, and generators of random and adversarial JSON in the shapes
 * clients send. Every generator is bounded (sizes and depths are parameters), so a case is small unless a
 * test asks for a large one on purpose.
 */

/** mulberry32: small, fast, and good enough to spread fuzz cases; the same seed gives the same cases. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Strings a parser or translator might trip on: empty, keys of Object.prototype, control and odd Unicode. */
const ADVERSARIAL_STRINGS = [
  "",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "\u0000",
  "\ud800",
  "\udfff",
  "é",
  "😀",
  "\r\n",
  "data: x\n\n",
  "#/$defs/a",
  "#/$defs/",
  "#/definitions/%E0%A4%A",
  "#/$defs/__proto__",
  "%",
  "data:image/png;base64,AAAA",
  "data:;base64,",
  "data:text/plain,%zz",
  "http://",
  "null",
  "NaN",
  "<|endoftext|>",
];

export class Fuzz {
  readonly random: () => number;

  constructor(readonly seed: number) {
    this.random = seededRandom(seed);
  }

  /** An integer in [0, below). */
  int(below: number): number {
    return Math.floor(this.random() * below);
  }

  chance(probability: number): boolean {
    return this.random() < probability;
  }

  pick<Item>(items: readonly Item[]): Item {
    return items[this.int(items.length)]!;
  }

  /** A short string: random printable and odd characters, or one of the adversarial ones. */
  string(maxLength = 12): string {
    if (this.chance(0.3)) return this.pick(ADVERSARIAL_STRINGS);
    let text = "";
    const length = this.int(maxLength + 1);
    for (let index = 0; index < length; index++) {
      text += this.chance(0.9) ? String.fromCharCode(32 + this.int(95)) : String.fromCharCode(this.int(0x3000));
    }
    return text;
  }

  /** A number, including the ones JSON cannot carry but a parsed body never holds (kept to JSON's). */
  number(): number {
    return this.pick([0, -1, 1, 0.5, 1e308, -1e308, 2 ** 53, 4096, 1_000_000, this.int(100), -this.int(100) - 0.25]);
  }

  /** Any JSON value, nested at most `depth` levels, with at most `width` entries per container. */
  json(depth = 3, width = 4): unknown {
    const kind = depth <= 0 ? this.int(4) : this.int(7);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.number();
      case 3:
        return this.string();
      case 4:
      case 5: {
        const object: Record<string, unknown> = {};
        const entries = this.int(width + 1);
        for (let index = 0; index < entries; index++) defineOwn(object, this.string(8), this.json(depth - 1, width));
        return object;
      }
      default:
        return Array.from({ length: this.int(width + 1) }, () => this.json(depth - 1, width));
    }
  }

  /**
   * `value` with a few nodes replaced: by random JSON, by a value of the wrong type, by a deep chain or a
   * wide array. What a hostile client does to a well-formed request.
   */
  mutate(value: unknown, mutations = 1 + this.int(3)): unknown {
    let result = structuredClone(value);
    for (let count = 0; count < mutations; count++) result = this.mutateOnce(result);
    return result;
  }

  private replacement(): unknown {
    switch (this.int(6)) {
      case 0:
        return this.json(2);
      case 1:
        return this.pick([null, 0, "", [], {}, true, "x"]);
      case 2:
        return deepChain(50 + this.int(200));
      case 3:
        return Array.from({ length: 50 + this.int(200) }, () => this.json(1));
      default:
        return this.string();
    }
  }

  private mutateOnce(value: unknown): unknown {
    if (typeof value !== "object" || value === null || this.chance(0.15)) return this.replacement();
    const keys = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value);
    if (keys.length === 0 || this.chance(0.1)) {
      if (Array.isArray(value)) value.push(this.replacement());
      else defineOwn(value as Record<string, unknown>, this.string(8), this.replacement());
      return value;
    }
    const key = this.pick(keys as Array<string | number>);
    const container = value as Record<string | number, unknown>;
    if (this.chance(0.1) && !Array.isArray(value)) delete container[key];
    else container[key] = this.mutateOnce(container[key]);
    return value;
  }
}

/** `{"a":{"a":...}}` or `[[...]]`, `depth` levels, built without recursion. */
export function deepChain(depth: number, shape: "object" | "array" = "object"): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = shape === "object" ? { a: value } : [value];
  return value;
}

/** Sets an own property, a key named `__proto__` included (as JSON.parse would). */
export function defineOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Runs `body` for `count` cases, each with its own seeded Fuzz; a failure names the seed (replay it with
 * `new Fuzz(seed)`).
 */
export function forEachCase(count: number, firstSeed: number, body: (fuzz: Fuzz) => void): void {
  for (let seed = firstSeed; seed < firstSeed + count; seed++) {
    try {
      body(new Fuzz(seed));
    } catch (error) {
      throw new Error(`fuzz case with seed ${seed} failed: ${error instanceof Error ? error.stack : String(error)}`);
    }
  }
}

/** The async form of forEachCase. */
export async function forEachCaseAsync(count: number, firstSeed: number, body: (fuzz: Fuzz) => Promise<void>): Promise<void> {
  for (let seed = firstSeed; seed < firstSeed + count; seed++) {
    try {
      await body(new Fuzz(seed));
    } catch (error) {
      throw new Error(`fuzz case with seed ${seed} failed: ${error instanceof Error ? error.stack : String(error)}`);
    }
  }
}

/**
 * Runs `attempt` and says how it ended: "ok", or "refused" when it threw an error `isTyped` accepts (the
 * error that maps to the client's envelope). Anything else (a TypeError, a RangeError) is rethrown, so the
 * fuzz case fails with it.
 */
export function outcomeOf(attempt: () => unknown, isTyped: (error: unknown) => boolean): "ok" | "refused" {
  try {
    attempt();
    return "ok";
  } catch (error) {
    if (isTyped(error)) return "refused";
    throw error;
  }
}
