/**
 * What one process serves. `npm start` runs `all` (the /v1 API and the console on one port),
 * `npm run start:gateway` runs `gateway` (scale-out: several on one DATABASE_URL behind a load balancer),
 * `npm run start:console` runs `console` (the console alone, beside such gateways).
 */
export type ServerMode = "all" | "gateway" | "console";

export interface ModeProfile {
  servesGateway: boolean;
  servesConsole: boolean;
  /** PORT when unset: a console of its own listens beside the gateways, on the next port. */
  defaultPort: number;
  /** DATABASE_POOL_SIZE when unset: the console alone needs fewer connections. */
  defaultPoolSize: number;
}

export const modeProfiles: Record<ServerMode, ModeProfile> = {
  all: { servesGateway: true, servesConsole: true, defaultPort: 3000, defaultPoolSize: 10 },
  gateway: { servesGateway: true, servesConsole: false, defaultPort: 3000, defaultPoolSize: 10 },
  console: { servesGateway: false, servesConsole: true, defaultPort: 3001, defaultPoolSize: 5 },
};

export const serverUsage = "usage: bun apps/server/src/index.ts [gateway | console]  (no argument: the gateway and the console)";

/** The mode named on the command line (none: all), or null when the arguments name none. */
export function parseServerMode(argv: readonly string[]): ServerMode | null {
  if (argv.length === 0) return "all";
  if (argv.length > 1) return null;
  const [word] = argv;
  return word === "all" || word === "gateway" || word === "console" ? word : null;
}
