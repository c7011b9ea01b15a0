import { useQuery } from "@tanstack/react-query";
import { QueryState } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { formatUsdExact } from "../lib/money";
import { useTRPC } from "../trpc";

/** A user's top-ups and adjustments, newest first: who, when, how much, and the note. */
export function UserBalanceHistory(props: { userId: number }) {
  const trpc = useTRPC();
  const user = useQuery({ ...trpc.users.byId.queryOptions({ id: props.userId }), staleTime: 0 });
  const rows = user.data?.balanceLogs ?? [];
  return (
    <div className="space-y-3" data-testid="balance-history">
      <QueryState isPending={user.isPending} error={user.error} />
      {user.data ? (
        <p className="text-sm text-slate-600">Balance now: {user.data.balanceUnlimited ? "unlimited (not enforced)" : formatUsdExact(user.data.balance)}</p>
      ) : null}
      {user.data && rows.length === 0 ? <p className="text-sm text-slate-500">No top-ups or adjustments yet.</p> : null}
      <ol className="divide-y divide-slate-100 rounded-md border border-slate-200">
        {rows.map((row) => (
          <li key={row.id} className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-0.5 px-3 py-2 text-sm" data-balance-log>
            <span className={`font-medium tabular-nums ${row.amount < 0 ? "text-red-700" : "text-emerald-700"}`}>
              {row.amount < 0 ? "" : "+"}
              {formatUsdExact(row.amount)}
            </span>
            <span className="min-w-0 flex-1 break-words text-slate-700">{row.reason}</span>
            <span className="text-xs text-slate-500">
              {row.actorName ?? (row.actorId === null ? "CLI" : `#${row.actorId}`)} · {formatDateTime(row.createdAt)}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}
