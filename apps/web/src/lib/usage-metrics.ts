/** What the dashboard's chart can plot. Kept apart from the chart so that naming a metric loads no charting code. */
export type Metric = "requests" | "tokens" | "cost";

export const metricLabels: Record<Metric, string> = { requests: "Requests", tokens: "Tokens", cost: "Spend" };
