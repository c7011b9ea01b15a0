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

/**
 * The settings table, loaded whole and kept in memory; a NOTIFY drops it (callers then wait on a new load),
 * and refresh() re-reads it in the background while the current values stay in service.
 */
export class SettingsCache {
  private current: GatewaySettings | null = null;
  private loading: Promise<GatewaySettings> | null = null;
  /** Bumped by invalidate(): a load that started before a change may have read the old rows, so it is not kept. */
  private generation = 0;

  constructor(private readonly db: Database) {}

  get(): GatewaySettings | Promise<GatewaySettings> {
    return this.current ?? this.loading ?? this.reload();
  }

  invalidate(): void {
    this.current = null;
    this.generation++;
    this.loading = null;
  }

  /** Re-reads the settings in the background (their max age passed); a failure keeps the current ones. */
  refresh(): Promise<void> {
    if (!this.current || this.loading) return Promise.resolve();
    return this.reload().then(
      () => {},
      () => {},
    );
  }

  private reload(): Promise<GatewaySettings> {
    const startedAt = this.generation;
    const promise = retryRead(() => this.load()).then(
      (loaded) => {
        if (this.loading === promise) this.loading = null;
        if (this.generation === startedAt) this.current = loaded;
        return loaded;
      },
      (error) => {
        if (this.loading === promise) this.loading = null;
        throw error;
      },
    );
    this.loading = promise;
    return promise;
  }

  private async load(): Promise<GatewaySettings> {
    const rows = await this.db.select().from(settings);
    const loaded: GatewaySettings = { ...defaults };
    for (const row of rows) {
      const key = keys[row.key];
      if (key && typeof row.value === typeof defaults[key]) (loaded as unknown as Record<string, unknown>)[key] = row.value;
    }
    return loaded;
  }
}
