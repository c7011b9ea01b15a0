import type { BudgetWindows } from "@tollgate/shared";
import type { CachedTeam, CachedToken, CachedUser } from "../auth/cached-records";
import { errors, GatewayError } from "../errors";
import { type BudgetView, budgetView } from "./budget-view";
import { OutageAllowances } from "./outage-allowance";
import { type LeaseBook, type LeaseRow, type LeaseSubject, NEAR_END } from "./quota-leases";

/** A hold on quota, budget and balance for one request, released by settle(). */
export interface Reservation {
  tokenId: number;
  userId: number;
  /**
   * What the call holds from, in order: the token's quota (its current period's subject when it has a
   * period), the user's budget (likewise), the user's balance; unlimited ones are left out.
   */
  subjects: LeaseSubject[];
  /**
   * The subjects the write-behind cannot tell from the ids (a period's, a user's budget), whether held or
   * not: the spend is counted in them, in the period the call was admitted in.
   */
  periodSubjects: LeaseSubject[];
  amount: number;
  settled: boolean;
  /** Held on the token's outage allowance (the database could not grant a lease), not on leases. */
  outage?: boolean;
}

/**
 * A smaller amount to hold when the first one does not fit this instance's slices: the fitted estimate,
 * worth its cost (tokenizing) only near the end of a slice, a quota or a balance.
 */
export type FittedAmount = () => number | Promise<number>;

/** Which limit refused: the token's quota, the user's budget, the user's balance, or the token's team's budget. */
export type Refusal = { refused: "token" | "budget" | "user" | "team" };

/** The budgets of one call at `now`: the token's quota and the user's budget, each null without a limit. */
export interface CallBudgets {
  token: BudgetView | null;
  user: BudgetView | null;
  /** The token's team's budget (shared by all of the team's tokens); null for a personal token or a team without one. */
  team: BudgetView | null;
}

const NO_BUDGETS: CallBudgets = Object.freeze({ token: null, user: null, team: null });

/** The tightest limit a call is held against: the token's quota, the owner's budget or balance; null without any. */
function tightestLimit(budgets: CallBudgets, user: CachedUser): number | null {
  const limits: number[] = [];
  if (budgets.token) limits.push(budgets.token.limit);
  if (budgets.user) limits.push(budgets.user.limit);
  if (budgets.team) limits.push(budgets.team.limit);
  if (!user.balanceUnlimited) limits.push(user.balance);
  return limits.length === 0 ? null : Math.min(...limits);
}

const refusalKind = (subject: LeaseSubject): Refusal["refused"] =>
  subject.startsWith("token:") ? "token" : subject.startsWith("budget:") ? "budget" : subject.startsWith("team:") ? "team" : "user";

/**
 * Holds the worst-case cost of a request against the token's quota, the owner's budget and the owner's
 * balance before it is forwarded, from this instance's leases (memory only, when they cover it) or by
 * taking a bigger lease (one short locked transaction). settle() swaps the hold for the real cost, which
 * the write-behind later moves into the database together with the lease. A budget with a period holds
 * from the lease of the period the clock is in: at the reset instant the next call holds from the new
 * period's leases, and a call admitted before it is billed to the period it was admitted in.
 */
export class QuotaLedger {
  constructor(
    private readonly leases: LeaseBook,
    private readonly windows: BudgetWindows,
    /** Epoch ms; injected so that tests can stand at a period's boundary. */
    readonly clock: () => number = Date.now,
    /** What a token may spend while the database cannot grant leases (outage-allowance.ts). */
    readonly outage: OutageAllowances = new OutageAllowances(),
  ) {}

  /**
   * The token's and the user's budgets now (views cached on the rows, rebuilt when a period ends). Without
   * any limit nothing is read, not even the clock; the clock only for a budget with a period.
   */
  budgets(token: CachedToken, user: CachedUser, team: CachedTeam | null = null): CallBudgets {
    const teamLimit = team === null ? null : team.budgetLimit;
    if (token.quotaLimit === null && user.budgetLimit === null && teamLimit === null) return NO_BUDGETS;
    const periodic =
      (token.quotaLimit !== null && token.budgetPeriod !== "none") ||
      (user.budgetLimit !== null && user.budgetPeriod !== "none") ||
      (teamLimit !== null && team!.budgetPeriod !== "none");
    const now = periodic ? this.clock() : 0;
    return {
      token: budgetView("token", token.id, token.quotaLimit, token.usedQuota, token, this.windows, now),
      user: budgetView("budget", user.id, user.budgetLimit, user.usedTotal, user, this.windows, now),
      team: team === null ? null : budgetView("team", team.id, team.budgetLimit, team.usedTotal, team, this.windows, now),
    };
  }

  /** The period and budget subjects a call's spend counts in now (for a call billed without a hold). */
  periodSubjects(token: CachedToken, user: CachedUser, team: CachedTeam | null = null): LeaseSubject[] {
    const budgets = this.budgets(token, user, team);
    const subjects: LeaseSubject[] = [];
    if (budgets.token?.window) subjects.push(budgets.token.subject);
    if (budgets.user) subjects.push(budgets.user.subject);
    if (budgets.team) subjects.push(budgets.team.subject);
    return subjects;
  }

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
    team: CachedTeam | null = null,
  ): Reservation | Refusal | Promise<Reservation | Refusal> {
    const budgets = this.budgets(token, user, team);
    // Exhausted according to the cached rows: refuse without touching the database.
    if (budgets.token && budgets.token.limit - budgets.token.spent <= 0) return { refused: "token" };
    if (budgets.user && budgets.user.limit - budgets.user.spent <= 0) return { refused: "budget" };
    if (budgets.team && budgets.team.limit - budgets.team.spent <= 0) return { refused: "team" };
    if (!user.balanceUnlimited && user.balance <= 0) return { refused: "user" };
    const subjects: LeaseSubject[] = [];
    const periodSubjects: LeaseSubject[] = [];
    if (budgets.token) {
      subjects.push(budgets.token.subject);
      if (budgets.token.window) periodSubjects.push(budgets.token.subject);
    }
    if (budgets.user) {
      subjects.push(budgets.user.subject);
      periodSubjects.push(budgets.user.subject);
    }
    if (budgets.team) {
      subjects.push(budgets.team.subject);
      periodSubjects.push(budgets.team.subject);
    }
    if (!user.balanceUnlimited) subjects.push(`user:${user.id}`);
    const reservation: Reservation = { tokenId: token.id, userId: user.id, subjects, periodSubjects, amount, settled: false };
    if (subjects.length === 0) return reservation;
    let heldCount = 0;
    while (heldCount < subjects.length && this.leases.tryHold(subjects[heldCount]!, amount)) heldCount++;
    if (heldCount === subjects.length) return reservation;
    for (let index = 0; index < heldCount; index++) this.leases.release(subjects[index]!, amount);
    const allowance = () => this.outage.allowanceFor(tightestLimit(budgets, user));
    if (!fitted) return this.orOutageAllowance(this.reserveWithNewLeases(reservation, false), reservation, allowance);
    // Far from the end of every limit the cheap bound takes the new slices: no tokenizing (and the
    // vocabulary, ~60 MB, is never loaded by a gateway whose limits are not near their end). Near the end,
    // or refused, the fitted estimate decides, so what is refused is what it cannot cover.
    const leased = this.reserveWithNewLeases(reservation, true).then((roomy) => {
      if (roomy !== NEAR_END && !("refused" in roomy)) return roomy;
      const fittedAmount = fitted();
      const exact = (value: number) => this.reserveWithNewLeases({ ...reservation, amount: Math.min(amount, value) }, false);
      return typeof fittedAmount === "number" ? exact(fittedAmount) : fittedAmount.then(exact);
    });
    return this.orOutageAllowance(leased, reservation, allowance, fitted);
  }

  /**
   * A reservation the database granted reconciles the token's outage allowance; one the database could not
   * be asked for (503 database_unavailable) is held on the allowance instead, at the fitted estimate when
   * there is one, or refused with that 503 once the allowance is spent.
   */
  private async orOutageAllowance(
    leased: Promise<Reservation | Refusal>,
    reservation: Reservation,
    allowance: () => number,
    fitted?: FittedAmount,
  ): Promise<Reservation | Refusal> {
    let result: Reservation | Refusal;
    try {
      result = await leased;
    } catch (error) {
      if (!(error instanceof GatewayError) || error.code !== "database_unavailable") throw error;
      const amount = fitted ? Math.min(reservation.amount, await fitted()) : reservation.amount;
      if (!this.outage.tryHold(reservation.tokenId, allowance(), amount)) {
        throw errors.databaseUnavailable(
          "The gateway's database is unreachable and this API key has spent the allowance it is served on meanwhile. Retry shortly.",
          error,
        );
      }
      return { ...reservation, amount, outage: true };
    }
    if (!("refused" in result)) this.outage.reconciled(reservation.tokenId);
    return result;
  }

  /**
   * Rejects with the lease book's 503 when the database cannot be asked; nothing stays held then. `roomy`:
   * NEAR_END (nothing held) when a slice would leave less than as much again of a limit (lease book).
   */
  private reserveWithNewLeases(reservation: Reservation, roomy: false): Promise<Reservation | Refusal>;
  private reserveWithNewLeases(reservation: Reservation, roomy: true): Promise<Reservation | Refusal | typeof NEAR_END>;
  private async reserveWithNewLeases(reservation: Reservation, roomy: boolean): Promise<Reservation | Refusal | typeof NEAR_END> {
    const { subjects, amount } = reservation;
    const held: LeaseSubject[] = [];
    const releaseHeld = () => {
      for (const subject of held) this.leases.release(subject, amount);
    };
    for (const subject of subjects) {
      let holds: boolean | typeof NEAR_END;
      try {
        holds = await this.hold(subject, amount, roomy);
      } catch (error) {
        releaseHeld();
        throw error;
      }
      if (holds !== true) {
        releaseHeld();
        return holds === NEAR_END ? NEAR_END : { refused: refusalKind(subject) };
      }
      held.push(subject);
    }
    return reservation;
  }

  /**
   * Concurrent requests share one acquisition at a time; a request that finds the new slice already taken
   * by the others asks again, until the database says there is no more (or, roomy, that the end is near).
   */
  private async hold(subject: LeaseSubject, amount: number, roomy: boolean): Promise<boolean | typeof NEAR_END> {
    for (let attempt = 0; attempt < 64; attempt++) {
      if (this.leases.tryHold(subject, amount)) return true;
      const acquired = await this.leases.acquire(subject, amount, roomy);
      if (acquired === NEAR_END) {
        // Another caller's roomy acquisition, joined: an exact caller asks for itself.
        if (roomy) return NEAR_END;
        continue;
      }
      if (!acquired) return this.leases.tryHold(subject, amount);
    }
    return false;
  }

  /** Releases the hold and records the real cost (which may exceed the hold: usage is billed as used). */
  settle(reservation: Reservation, cost: number): void {
    if (reservation.settled) return;
    reservation.settled = true;
    if (reservation.outage) {
      // Nothing was held on the leases: the cost is pending spend there all the same (written behind, and
      // counted by every later acquisition).
      this.outage.spend(reservation.tokenId, reservation.amount, cost);
      for (const subject of reservation.subjects) this.leases.spend(subject, 0, cost);
      return;
    }
    for (const subject of reservation.subjects) this.leases.spend(subject, reservation.amount, cost);
  }

  /**
   * Called once the write-behind has committed these amounts (and shrunk the leases by them): spend by
   * token and user id (lifetime quota, balance), and by period or budget subject.
   */
  markWritten(
    tokenDeltas: Map<number, number>,
    userDeltas: Map<number, number>,
    subjectDeltas: Map<LeaseSubject, number>,
    leaseRows: Map<LeaseSubject, LeaseRow>,
  ): void {
    for (const [id, amount] of tokenDeltas) this.leases.written(`token:${id}`, amount, leaseRows.get(`token:${id}`));
    for (const [id, amount] of userDeltas) this.leases.written(`user:${id}`, amount, leaseRows.get(`user:${id}`));
    for (const [subject, amount] of subjectDeltas) this.leases.written(subject, amount, leaseRows.get(subject));
  }

  /** Amount of a subject held by this instance's requests in flight. */
  heldFor(subject: LeaseSubject | number): number {
    return this.leases.held(typeof subject === "number" ? `token:${subject}` : subject);
  }

  /** This instance's spend of a subject not yet written to the database. */
  unwritten(subject: LeaseSubject): number {
    return this.leases.pendingSpent(subject);
  }

  /** What this instance may still spend of a subject without taking a new lease. */
  unspentLease(subject: LeaseSubject | number): number {
    return this.leases.unspent(typeof subject === "number" ? `token:${subject}` : subject);
  }
}
