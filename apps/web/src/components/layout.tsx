import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { NavLink, useNavigate } from "react-router";
import { formatUsd } from "../lib/money";
import { useTRPC } from "../trpc";

interface Me {
  name: string;
  role: "admin" | "user";
  balance: number;
  balanceUnlimited: boolean;
}

const userLinks = [
  { to: "/", label: "Dashboard" },
  { to: "/tokens", label: "Tokens" },
  { to: "/logs", label: "Logs" },
  { to: "/quick-start", label: "Quick start" },
];
const adminLinks = [
  { to: "/channels", label: "Channels" },
  { to: "/models", label: "Models & prices" },
  { to: "/users", label: "Users" },
];

function Link(props: { to: string; label: string }) {
  return (
    <NavLink
      to={props.to}
      end={props.to === "/"}
      className={({ isActive }) =>
        `block rounded-md px-3 py-1.5 text-sm font-medium ${isActive ? "bg-indigo-50 text-indigo-700" : "text-slate-600 hover:bg-slate-100 hover:text-slate-900"}`
      }
    >
      {props.label}
    </NavLink>
  );
}

export function Layout(props: { me: Me; children: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({
      onSettled: () => {
        queryClient.clear();
        navigate("/login", { replace: true });
      },
    }),
  );
  return (
    <div className="flex min-h-screen">
      <aside className="flex w-56 shrink-0 flex-col border-r border-slate-200 bg-white">
        <div className="flex items-center gap-2 px-4 py-4">
          <img src="/favicon.svg" alt="" className="h-7 w-7" />
          <span className="text-base font-semibold tracking-tight">Tollgate</span>
        </div>
        <nav className="flex-1 space-y-0.5 px-2">
          {userLinks.map((link) => (
            <Link key={link.to} {...link} />
          ))}
          {props.me.role === "admin" ? (
            <>
              <p className="px-3 pb-1 pt-4 text-xs font-semibold uppercase tracking-wide text-slate-400">Administration</p>
              {adminLinks.map((link) => (
                <Link key={link.to} {...link} />
              ))}
            </>
          ) : null}
        </nav>
        <div className="border-t border-slate-200 p-4 text-sm">
          <p className="font-medium" data-testid="signed-in-as">
            {props.me.name}
            <span className="ml-1 text-xs font-normal text-slate-500">({props.me.role})</span>
          </p>
          <p className="text-xs text-slate-500">Balance: {props.me.balanceUnlimited ? "unlimited" : formatUsd(props.me.balance)}</p>
          <button type="button" className="button-small mt-2" onClick={() => logout.mutate()} disabled={logout.isPending}>
            Sign out
          </button>
        </div>
      </aside>
      <main className="min-w-0 flex-1 px-8 py-6">{props.children}</main>
    </div>
  );
}
