import type { CachedToken, CachedUser } from "../auth/cached-records";

interface Account {
  /** Worst-case cost of requests in flight. */
  reserved: number;
  /** Settled cost not yet written to the database. */
  pending: number;
}

/** A hold on quota and balance for one request, released by settle(). */
export interface Reservation {
  tokenId: number;
  userId: number;
  amount: number;
  settled: boolean;
}

/**
 * This process's view of spend on top of what the database last said. Available quota is
 * limit - (used in database + pending here + reserved here); a request reserves its worst-case cost
 * before it is forwarded, so concurrent requests cannot together spend past the limit. settle() swaps
 * the reservation for the real cost, which the write-behind later moves into the database.
 */
export class QuotaLedger {
  private readonly tokenAccounts = new Map<number, Account>();
  private readonly userAccounts = new Map<number, Account>();

  /** Returns null when the token's quota or the owner's balance cannot cover `amount`. */
  reserve(token: CachedToken, user: CachedUser, amount: number): Reservation | { refused: "token" | "user" } {
    const tokenAccount = this.account(this.tokenAccounts, token.id);
    const userAccount = this.account(this.userAccounts, user.id);
    if (token.quotaLimit !== null) {
      const remaining = token.quotaLimit - token.usedQuota - tokenAccount.pending - tokenAccount.reserved;
      if (remaining <= 0 || amount > remaining) return { refused: "token" };
    }
    if (!user.balanceUnlimited) {
      const remaining = user.balance - userAccount.pending - userAccount.reserved;
      if (remaining <= 0 || amount > remaining) return { refused: "user" };
    }
    tokenAccount.reserved += amount;
    userAccount.reserved += amount;
    return { tokenId: token.id, userId: user.id, amount, settled: false };
  }

  /** Releases the hold and records the real cost (which may exceed the hold: usage is billed as used). */
  settle(reservation: Reservation, cost: number): void {
    if (reservation.settled) return;
    reservation.settled = true;
    const tokenAccount = this.account(this.tokenAccounts, reservation.tokenId);
    const userAccount = this.account(this.userAccounts, reservation.userId);
    tokenAccount.reserved -= reservation.amount;
    userAccount.reserved -= reservation.amount;
    tokenAccount.pending += cost;
    userAccount.pending += cost;
  }

  /** Called once the write-behind has committed these amounts to the database. */
  markWritten(tokenDeltas: Map<number, number>, userDeltas: Map<number, number>): void {
    for (const [id, amount] of tokenDeltas) this.release(this.tokenAccounts, id, amount);
    for (const [id, amount] of userDeltas) this.release(this.userAccounts, id, amount);
  }

  remainingQuota(token: CachedToken): number | null {
    if (token.quotaLimit === null) return null;
    const account = this.tokenAccounts.get(token.id);
    return token.quotaLimit - token.usedQuota - (account?.pending ?? 0) - (account?.reserved ?? 0);
  }

  private account(accounts: Map<number, Account>, id: number): Account {
    let account = accounts.get(id);
    if (!account) {
      account = { reserved: 0, pending: 0 };
      accounts.set(id, account);
    }
    return account;
  }

  private release(accounts: Map<number, Account>, id: number, amount: number): void {
    const account = accounts.get(id);
    if (!account) return;
    account.pending -= amount;
    if (account.pending === 0 && account.reserved === 0) accounts.delete(id);
  }
}
