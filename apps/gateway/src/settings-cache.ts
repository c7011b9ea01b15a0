import { type Database, settings } from "@tollgate/db";
import { retryRead } from "./retry-read";

/** Settings an admin can change at run time, with their defaults. */
export interface GatewaySettings {
  /** Completion tokens assumed for the quota reservation of a request without max_tokens. */
  reservationDefaultMaxTokens: number;
}

const defaults: GatewaySettings = {
  reservationDefaultMaxTokens: 4096,
};

const keys: Record<string, keyof GatewaySettings> = {
  reservation_default_max_tokens: "reservationDefaultMaxTokens",
};

export class SettingsCache {
  private current: GatewaySettings | null = null;
  private loading: Promise<GatewaySettings> | null = null;

  constructor(private readonly db: Database) {}

  get(): GatewaySettings | Promise<GatewaySettings> {
    if (this.current) return this.current;
    this.loading ??= retryRead(() => this.load()).finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  invalidate(): void {
    this.current = null;
    this.loading = null;
  }

  private async load(): Promise<GatewaySettings> {
    const rows = await this.db.select().from(settings);
    const loaded: GatewaySettings = { ...defaults };
    for (const row of rows) {
      const key = keys[row.key];
      if (key && typeof row.value === typeof defaults[key]) (loaded as unknown as Record<string, unknown>)[key] = row.value;
    }
    this.current = loaded;
    return loaded;
  }
}
