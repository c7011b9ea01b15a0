/** Prometheus text exposition format 0.0.4, as a scrape's Content-Type. */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function assertMetricName(name: string): void {
  if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name ${JSON.stringify(name)}`);
}

export function assertLabelName(name: string): void {
  if (!LABEL_NAME.test(name) || name.startsWith("__")) throw new Error(`invalid label name ${JSON.stringify(name)}`);
}

/** A label value between double quotes: backslash, double quote and line feed are escaped. */
export function escapeLabelValue(value: string): string {
  if (!/[\\"\n]/.test(value)) return value;
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** HELP text: backslash and line feed are escaped (a double quote is not). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

export function formatSampleValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

/** `{a="x",b="y"}`, or "" with no labels. */
export function formatLabels(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return "";
  let text = "{";
  for (let index = 0; index < names.length; index++) {
    if (index > 0) text += ",";
    text += `${names[index]}="${escapeLabelValue(values[index] ?? "")}"`;
  }
  return `${text}}`;
}
