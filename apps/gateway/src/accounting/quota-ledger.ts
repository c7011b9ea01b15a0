import type { CachedToken, CachedUser } from "../auth/cached-records";
import type { LeaseBook, LeaseRow, LeaseSubject } from "./quota-leases";

/** A hold on quota and balance for one request, released by settle(). */
export interface Reservation {
  tokenId: number;
  userId: number;
  /** Null when the token's quota is unlimited / the owner's balance is unlimited. */
  tokenSubject: LeaseSubject | null;
  userSubject: LeaseSubject | null;
  amount: number;
  settled: boolean;
}

/**
 * A smaller amount to hold when the first one does not fit this instance's slices: the fitted estimate,
 * worth its cost (tokenizing) only near the end of a slice, a quota or a balance.
 */
export type FittedAmount = () => number | Promise<number>;

export type Refusal = { refused: "token" | "user" };

/**
 * Holds the worst-case cost of a request against the token's quota and the owner's balance before it is
 * forwarded, from this instance's leases (memory only, when they cover it) or by taking a bigger lease
 * (one short locked transaction). settle() swaps the hold for the real cost, which the write-behind later
 * moves into the database together with the lease.
 */
export class QuotaLedger {
  constructor(private readonly leases: LeaseBook) {}

  /**
   * Holds `amount` (a cheap upper bound) from memory when this instance's slices cover it; otherwise holds
   * `fitted()` (at most `amount`), taking bigger slices if needed, so that what is refused is what the
   * fitted estimate cannot cover.
   */
  reserve(
    token: CachedToken,
    user: CachedUser,
    amount: number,
    fitted?: FittedAmount,
  ): Reservation | Refusal | Promise<Reservation | Refusal> {
    const tokenSubject: LeaseSubject | null = token.quotaLimit !== null ? `token:${token.id}` : null;
    const userSubject: LeaseSubject | null = user.balanceUnlimited ? null : `user:${user.id}`;
    // Exhausted according to the cached rows: refuse without touching the database.
    if (token.quotaLimit !== null && token.quotaLimit - token.usedQuota <= 0) return { refused: "token" };
    if (userSubject && user.balance <= 0) return { refused: "user" };
    const reservation: Reservation = { tokenId: token.id, userId: user.id, tokenSubject, userSubject, amount, settled: false };
    if (!tokenSubject && !userSubject) return reservation;
    const tokenHeld = !tokenSubject || this.leases.tryHold(tokenSubject, amount);
    const userHeld = tokenHeld && (!userSubject || this.leases.tryHold(userSubject, amount));
    if (tokenHeld && userHeld) return reservation;
    if (tokenHeld && tokenSubject) this.leases.release(tokenSubject, amount);
    if (!fitted) return this.reserveWithNewLeases(reservation);
    const fittedAmount = fitted();
    if (typeof fittedAmount === "number") return this.reserveWithNewLeases({ ...reservation, amount: Math.min(amount, fittedAmount) });
    return fittedAmount.then((value) => this.reserveWithNewLeases({ ...reservation, amount: Math.min(amount, value) }));
  }

  /** Rejects with the lease book's 503 when the database cannot be asked; nothing stays held then. */
  private async reserveWithNewLeases(reservation: Reservation): Promise<Reservation | Refusal> {
    const { tokenSubject, userSubject, amount } = reservation;
    if (tokenSubject && !(await this.hold(tokenSubject, amount))) return { refused: "token" };
    let userHeld: boolean;
    try {
      userHeld = !userSubject || (await this.hold(userSubject, amount));
    } catch (error) {
      if (tokenSubject) this.leases.release(tokenSubject, amount);
      throw error;
    }
    if (!userHeld) {
      if (tokenSubject) this.leases.release(tokenSubject, amount);
      return { refused: "user" };
    }
    return reservation;
  }

  /**
   * Concurrent requests share one acquisition at a time; a request that finds the new slice already taken
   * by the others asks again, until the database says there is no more.
   */
  private async hold(subject: LeaseSubject, amount: number): Promise<boolean> {
    for (let attempt = 0; attempt < 64; attempt++) {
      if (this.leases.tryHold(subject, amount)) return true;
      if (!(await this.leases.acquire(subject, amount))) return this.leases.tryHold(subject, amount);
    }
    return false;
  }

  /** Releases the hold and records the real cost (which may exceed the hold: usage is billed as used). */
  settle(reservation: Reservation, cost: number): void {
    if (reservation.settled) return;
    reservation.settled = true;
    if (reservation.tokenSubject) this.leases.spend(reservation.tokenSubject, reservation.amount, cost);
    if (reservation.userSubject) this.leases.spend(reservation.userSubject, reservation.amount, cost);
  }

  /** Called once the write-behind has committed these amounts (and shrunk the leases by them). */
  markWritten(tokenDeltas: Map<number, number>, userDeltas: Map<number, number>, leaseRows: Map<LeaseSubject, LeaseRow>): void {
    for (const [id, amount] of tokenDeltas) this.leases.written(`token:${id}`, amount, leaseRows.get(`token:${id}`));
    for (const [id, amount] of userDeltas) this.leases.written(`user:${id}`, amount, leaseRows.get(`user:${id}`));
  }

  /** Amount of a token's quota held by this instance's requests in flight. */
  heldFor(tokenId: number): number {
    return this.leases.held(`token:${tokenId}`);
  }

  /** What this instance may still spend of a token's quota without taking a new lease. */
  unspentLease(tokenId: number): number {
    return this.leases.unspent(`token:${tokenId}`);
  }
}
