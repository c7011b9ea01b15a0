/** The model id an upstream knows a public model by (the channel's mapping; the same id when unmapped). */
export function upstreamModelFor(channel: { modelMapping: Record<string, string> }, model: string): string {
  return channel.modelMapping[model] ?? model;
}
