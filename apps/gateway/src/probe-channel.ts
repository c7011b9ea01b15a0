/** The channel prober now lives in @tollgate/upstream; this path is kept for the console until it imports it from there. */
export { type ChannelProbeResult, createChannelProber } from "@tollgate/upstream";
