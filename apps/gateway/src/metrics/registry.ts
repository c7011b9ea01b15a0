import {
  assertLabelName,
  assertMetricName,
  escapeHelp,
  escapeLabelValue,
  formatLabels,
  formatSampleValue,
} from "./exposition-format";

export type LabelValue = string | number;
/** One value per label name, in the order the names were declared. */
export type LabelValues<Names extends readonly string[]> = { [Index in keyof Names]: LabelValue };
export type LabelSet<Names extends readonly string[]> = { [Name in Names[number]]: LabelValue };

/**
 * Label values of series created past a family's `maxSeries`: model names and the like come from
 * callers, and a flood of distinct values must not grow memory (or the scrape) without bound.
 */
export const OVERFLOW_LABEL_VALUE = "_overflow";
const DEFAULT_MAX_SERIES = 10_000;

interface Family {
  render(lines: string[]): void;
}

interface FamilyOptions<Names extends readonly string[]> {
  name: string;
  help: string;
  labelNames: Names;
  /** Label combinations with a series of their own (default 10,000); later ones share one more, labelled "_overflow". */
  maxSeries?: number;
}

function header(lines: string[], name: string, help: string, type: string): void {
  lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
}

function validate(options: FamilyOptions<readonly string[]>): void {
  assertMetricName(options.name);
  for (const labelName of options.labelNames) assertLabelName(labelName);
  if (new Set(options.labelNames).size !== options.labelNames.length) throw new Error(`duplicate label in ${options.name}`);
}

/**
 * Children by label values, found by walking one Map per label (no key string is built per call), so
 * `family.labels("chat.completions", "gpt-4o-mini")` costs a few Map lookups once the series exists.
 * Callers on a hot path can keep the child it returns.
 */
abstract class LabelledFamily<Names extends readonly string[], Child extends { labelText: string }> implements Family {
  readonly name: string;
  readonly help: string;
  readonly labelNames: Names;
  private readonly series: Child[] = [];
  /** Nested Maps by raw label value (200 and "200" are two paths to one child). */
  private readonly root = new Map<LabelValue, unknown>();
  /** Children by their label values as text, joined: consulted only when a raw path is new. */
  private readonly byText = new Map<string, Child>();
  private readonly maxSeries: number;
  private overflow: Child | null = null;
  private unlabelled: Child | null = null;

  constructor(options: FamilyOptions<Names>) {
    validate(options);
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    this.maxSeries = options.maxSeries ?? DEFAULT_MAX_SERIES;
  }

  protected abstract createChild(labelText: string): Child;
  abstract render(lines: string[]): void;

  labels(...values: LabelValues<Names>): Child {
    const last = values.length - 1;
    if (last < 0) return this.unlabelledChild();
    let node: Map<LabelValue, unknown> | undefined = this.root;
    for (let index = 0; index < last; index++) {
      node = node.get(values[index] as LabelValue) as Map<LabelValue, unknown> | undefined;
      if (node === undefined) return this.resolve(values as unknown as readonly LabelValue[]);
    }
    return (node.get(values[last] as LabelValue) as Child | undefined) ?? this.resolve(values as unknown as readonly LabelValue[]);
  }

  /** Every series, the unlabelled one included even before its first use (a counter starts at 0). */
  protected children(): readonly Child[] {
    if (this.labelNames.length === 0) this.unlabelledChild();
    return this.series;
  }

  protected unlabelledChild(): Child {
    if (this.labelNames.length !== 0) throw new Error(`${this.name} takes ${this.labelNames.length} label values, got 0`);
    this.unlabelled ??= this.add([]);
    return this.unlabelled;
  }

  private resolve(values: readonly LabelValue[]): Child {
    if (values.length !== this.labelNames.length) {
      throw new Error(`${this.name} takes ${this.labelNames.length} label values, got ${values.length}`);
    }
    const text = values.map(String);
    const key = text.join("\u0000");
    let child = this.byText.get(key);
    if (child === undefined) {
      // Past the cap nothing is remembered, so a flood of new values costs time, not memory.
      if (this.series.length >= this.maxSeries) return this.overflowChild();
      child = this.add(text);
      this.byText.set(key, child);
    }
    let node = this.root;
    for (let index = 0; index < values.length - 1; index++) {
      let next = node.get(values[index] as LabelValue) as Map<LabelValue, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(values[index] as LabelValue, next);
      }
      node = next;
    }
    node.set(values[values.length - 1] as LabelValue, child);
    return child;
  }

  private overflowChild(): Child {
    this.overflow ??= this.add(this.labelNames.map(() => OVERFLOW_LABEL_VALUE));
    return this.overflow;
  }

  private add(values: string[]): Child {
    const child = this.createChild(formatLabels(this.labelNames, values).slice(1, -1));
    this.series.push(child);
    return child;
  }
}

export class CounterChild {
  value = 0;
  constructor(readonly labelText: string) {}

  /** Adds `by` (default 1); a negative or NaN amount is ignored, since a counter never goes down. */
  inc(by = 1): void {
    if (by >= 0) this.value += by;
  }
}

/** A family whose series are one sample each (a counter's or a gauge's), rendered alike but for the type. */
abstract class SingleValueFamily<Names extends readonly string[], Child extends { labelText: string; value: number }> extends LabelledFamily<Names, Child> {
  protected abstract readonly metricType: "counter" | "gauge";

  render(lines: string[]): void {
    header(lines, this.name, this.help, this.metricType);
    for (const child of this.children()) {
      lines.push(`${this.name}${child.labelText ? `{${child.labelText}}` : ""} ${formatSampleValue(child.value)}`);
    }
  }
}

export class Counter<Names extends readonly string[]> extends SingleValueFamily<Names, CounterChild> {
  protected readonly metricType = "counter";

  protected createChild(labelText: string): CounterChild {
    return new CounterChild(labelText);
  }

  /** For a counter without labels. */
  inc(by = 1): void {
    this.unlabelledChild().inc(by);
  }
}

export class GaugeChild {
  value = 0;
  constructor(readonly labelText: string) {}
  set(value: number): void {
    this.value = value;
  }
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
}

export class Gauge<Names extends readonly string[]> extends SingleValueFamily<Names, GaugeChild> {
  protected readonly metricType = "gauge";

  protected createChild(labelText: string): GaugeChild {
    return new GaugeChild(labelText);
  }

  /** For a gauge without labels. */
  set(value: number): void {
    this.unlabelledChild().set(value);
  }
}

export class HistogramChild {
  /** Per-bucket (not cumulative) counts; the last one is the +Inf bucket. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labelText: string,
    private readonly bounds: Float64Array,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (Number.isNaN(value)) return;
    const bounds = this.bounds;
    let index = 0;
    while (index < bounds.length && value > (bounds[index] as number)) index++;
    (this.counts[index] as number)++;
    this.sum += value;
    this.count++;
  }
}

export class Histogram<Names extends readonly string[]> extends LabelledFamily<Names, HistogramChild> {
  private readonly bounds: Float64Array;
  private readonly boundTexts: string[];

  constructor(options: FamilyOptions<Names> & { buckets: readonly number[] }) {
    if (options.labelNames.includes("le" as never)) throw new Error(`${options.name}: "le" is reserved for histogram buckets`);
    const sorted = [...options.buckets].filter((bound) => Number.isFinite(bound)).sort((a, b) => a - b);
    if (sorted.length === 0 || new Set(sorted).size !== sorted.length) throw new Error(`${options.name}: buckets must be distinct finite numbers`);
    super(options);
    this.bounds = Float64Array.from(sorted);
    this.boundTexts = sorted.map((bound) => formatSampleValue(bound));
  }

  protected createChild(labelText: string): HistogramChild {
    return new HistogramChild(labelText, this.bounds);
  }

  /** For a histogram without labels. */
  observe(value: number): void {
    this.unlabelledChild().observe(value);
  }

  render(lines: string[]): void {
    header(lines, this.name, this.help, "histogram");
    for (const child of this.children()) {
      const prefix = child.labelText ? `${child.labelText},` : "";
      const braces = child.labelText ? `{${child.labelText}}` : "";
      let cumulative = 0;
      for (let index = 0; index < this.boundTexts.length; index++) {
        cumulative += child.counts[index] as number;
        lines.push(`${this.name}_bucket{${prefix}le="${this.boundTexts[index]}"} ${cumulative}`);
      }
      lines.push(`${this.name}_bucket{${prefix}le="+Inf"} ${child.count}`);
      lines.push(`${this.name}_sum${braces} ${formatSampleValue(child.sum)}`);
      lines.push(`${this.name}_count${braces} ${child.count}`);
    }
  }
}

export type Emit<Names extends readonly string[]> = (labels: LabelSet<Names>, value: number) => void;

/**
 * A counter or gauge whose values are read at scrape time from state the gateway keeps anyway (cache
 * statistics, queue depth, channel states): nothing is done per request. Several sources may register;
 * a source that throws is skipped for that scrape.
 */
export class CollectedMetric<Names extends readonly string[]> implements Family {
  private readonly sources: Array<(emit: Emit<Names>) => void> = [];

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: "counter" | "gauge",
    readonly labelNames: Names,
  ) {
    validate({ name, help, labelNames });
  }

  /** Registers a source; returns a function that removes it. */
  onCollect(source: (emit: Emit<Names>) => void): () => void {
    this.sources.push(source);
    return () => {
      const index = this.sources.indexOf(source);
      if (index !== -1) this.sources.splice(index, 1);
    };
  }

  render(lines: string[]): void {
    header(lines, this.name, this.help, this.type);
    const seen = new Set<string>();
    const emit: Emit<Names> = (labels, value) => {
      const set = labels as Record<string, LabelValue>;
      let text = "";
      for (let index = 0; index < this.labelNames.length; index++) {
        const labelName = this.labelNames[index] as string;
        if (index > 0) text += ",";
        text += `${labelName}="${escapeLabelValue(String(set[labelName] ?? ""))}"`;
      }
      // A series may appear once per scrape; a repeated one is dropped.
      if (seen.has(text)) return;
      seen.add(text);
      lines.push(`${this.name}${text ? `{${text}}` : ""} ${formatSampleValue(value)}`);
    };
    for (const source of this.sources) {
      try {
        source(emit);
      } catch {
        // A broken source must not break the scrape of everything else.
      }
    }
  }
}

/** Families in registration order, rendered as Prometheus text exposition format 0.0.4. */
export class MetricsRegistry {
  private readonly families: Family[] = [];
  private readonly names = new Set<string>();

  private register<F extends Family & { name: string }>(family: F): F {
    if (this.names.has(family.name)) throw new Error(`metric ${family.name} is already registered`);
    this.names.add(family.name);
    this.families.push(family);
    return family;
  }

  counter<const Names extends readonly string[]>(options: FamilyOptions<Names>): Counter<Names> {
    return this.register(new Counter(options));
  }

  gauge<const Names extends readonly string[]>(options: FamilyOptions<Names>): Gauge<Names> {
    return this.register(new Gauge(options));
  }

  histogram<const Names extends readonly string[]>(options: FamilyOptions<Names> & { buckets: readonly number[] }): Histogram<Names> {
    return this.register(new Histogram(options));
  }

  collected<const Names extends readonly string[]>(options: {
    name: string;
    help: string;
    type: "counter" | "gauge";
    labelNames: Names;
  }): CollectedMetric<Names> {
    return this.register(new CollectedMetric(options.name, options.help, options.type, options.labelNames));
  }

  render(): string {
    const lines: string[] = [];
    for (const family of this.families) family.render(lines);
    return `${lines.join("\n")}\n`;
  }
}
