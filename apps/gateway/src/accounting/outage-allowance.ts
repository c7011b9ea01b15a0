/** How much a token may spend while the database cannot be asked for a new quota lease. */
export interface OutageAllowanceOptions {
  /** Share of the token's tightest limit (its quota, the owner's budget or balance), e.g. 0.02. */
  share: number;
  /** The most any one token may spend on its allowance, in micro-USD. */
  capMicroUsd: number;
}

export const defaultOutageAllowance: OutageAllowanceOptions = { share: 0.02, capMicroUsd: 1_000_000 };

interface AllowanceUse {
  /** Holds of calls in flight admitted on the allowance. */
  held: number;
  /** Settled costs of those calls since the database last granted this token a lease. */
  spent: number;
}

/**
 * Per-token spending while the database is away: a call that needs a new quota lease, which only the
 * database can grant, is admitted instead if what the token spent on its allowance, what is held on it and
 * the call's own hold fit in the allowance. Such spend is written behind like any other (it is pending in
 * the lease book, so every later acquisition counts it before granting more); once the database grants the
 * token a lease again, that spend is within its limit and the allowance is whole again.
 *
 * Bound: a token spends at most its allowance during an outage, plus what calls cost beyond their
 * worst-case hold (a completion longer than its bound, as outside an outage), on top of the slice its
 * instance already held. Per instance: N instances cut off together allow N allowances.
 */
export class OutageAllowances {
  private readonly uses = new Map<number, AllowanceUse>();

  constructor(private readonly options: OutageAllowanceOptions = defaultOutageAllowance) {}

  /** The allowance of a token whose tightest limit is `limit` (micro-USD); null without any limit. */
  allowanceFor(limit: number | null): number {
    if (limit === null) return this.options.capMicroUsd;
    return Math.max(0, Math.min(this.options.capMicroUsd, Math.floor(limit * this.options.share)));
  }

  /** Holds `amount` on the token's allowance if it fits (no I/O). */
  tryHold(tokenId: number, allowance: number, amount: number): boolean {
    const use = this.uses.get(tokenId) ?? { held: 0, spent: 0 };
    if (use.held + use.spent + amount > allowance) return false;
    use.held += amount;
    this.uses.set(tokenId, use);
    return true;
  }

  /** A call admitted on the allowance ended: its hold becomes its real cost. */
  spend(tokenId: number, held: number, cost: number): void {
    const use = this.uses.get(tokenId);
    if (!use) return;
    use.held -= held;
    use.spent += cost;
  }

  /**
   * The database granted the token a lease: it counted the spend pending here against the limit, so the
   * allowance is whole again (calls still in flight on it keep their holds).
   */
  reconciled(tokenId: number): void {
    const use = this.uses.get(tokenId);
    if (!use) return;
    if (use.held === 0) this.uses.delete(tokenId);
    else use.spent = 0;
  }

  /** What the token spent and holds on its allowance (0 outside an outage). */
  used(tokenId: number): number {
    const use = this.uses.get(tokenId);
    return use ? use.held + use.spent : 0;
  }
}
