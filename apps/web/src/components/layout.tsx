import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect, useState } from "react";
import { NavLink, useLocation, useNavigate } from "react-router";
import { formatUsd } from "../lib/money";
import { useTRPC } from "../trpc";

interface Me {
  name: string;
  role: "admin" | "user";
  balance: number;
  balanceUnlimited: boolean;
}

/** The sidebar's links in order; the `admin` ones show to administrators only, under "Administration". */
const sidebarLinks: { to: string; label: string; admin?: true }[] = [
  { to: "/", label: "Dashboard" },
  { to: "/tokens", label: "Tokens" },
  { to: "/logs", label: "Logs" },
  { to: "/alerts", label: "Spend alerts" },
  { to: "/teams", label: "Teams" },
  { to: "/quick-start", label: "Quick start" },
  { to: "/channels", label: "Channels", admin: true },
  { to: "/models", label: "Models & prices", admin: true },
  { to: "/users", label: "Users", admin: true },
  { to: "/mcp-servers", label: "MCP servers", admin: true },
  { to: "/audit", label: "Audit log", admin: true },
  { to: "/api-keys", label: "API keys", admin: true },
];
const userLinks = sidebarLinks.filter((link) => !link.admin);
const adminLinks = sidebarLinks.filter((link) => link.admin);

function Link(props: { to: string; label: string; onClick: () => void }) {
  return (
    <NavLink
      to={props.to}
      onClick={props.onClick}
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
  // With OIDC_PROVIDER_LOGOUT, signing out is a POST that ends the session and says where to go next: the
  // identity provider's end-session page for an SSO session (its session ends too), the sign-in page otherwise.
  const logoutPath = useQuery(trpc.auth.signInOptions.queryOptions()).data?.oidc?.logoutPath ?? null;
  const [leaving, setLeaving] = useState(false);
  const signOut = async () => {
    if (logoutPath === null) {
      logout.mutate();
      return;
    }
    setLeaving(true);
    let next = "/login";
    try {
      const answer = await fetch(logoutPath, { method: "POST", credentials: "same-origin" });
      if (answer.ok) next = ((await answer.json()) as { location?: string }).location ?? next;
    } catch {
      // The session may be left on the server (it expires); the sign-in page is still where to go.
    }
    queryClient.clear();
    window.location.assign(next);
  };
  // Below lg the sidebar is a drawer behind a menu button; it closes on navigation and on Escape.
  const [menuOpen, setMenuOpen] = useState(false);
  const closeMenu = () => setMenuOpen(false);
  const location = useLocation();
  useEffect(() => setMenuOpen(false), [location.pathname]);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setMenuOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [menuOpen]);
  return (
    <div className="min-h-screen lg:flex">
      <header className="sticky top-0 z-20 flex items-center gap-3 border-b border-slate-200 bg-white px-4 py-2 lg:hidden">
        <button
          type="button"
          className="button px-2"
          aria-label={menuOpen ? "Close menu" : "Open menu"}
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true">☰</span>
        </button>
        <img src="/favicon.svg" alt="" className="h-6 w-6" />
        <span className="font-semibold tracking-tight">Tollgate</span>
      </header>
      {menuOpen ? <div className="fixed inset-0 z-30 bg-slate-900/40 lg:hidden" aria-hidden="true" onClick={() => setMenuOpen(false)} /> : null}
      <aside
        id="sidebar"
        className={`${menuOpen ? "flex" : "hidden"} fixed inset-y-0 left-0 z-40 w-64 max-w-[85vw] flex-col overflow-y-auto border-r border-slate-200 bg-white shadow-xl lg:sticky lg:top-0 lg:z-auto lg:flex lg:h-screen lg:w-56 lg:shrink-0 lg:shadow-none`}
      >
        <div className="flex items-center gap-2 px-4 py-4">
          <img src="/favicon.svg" alt="" className="h-7 w-7" />
          <span className="text-base font-semibold tracking-tight">Tollgate</span>
        </div>
        <nav className="flex-1 space-y-0.5 px-2">
          {/* A tap on a link closes the drawer, the current page's link too (no navigation happens then). */}
          {userLinks.map((link) => (
            <Link key={link.to} to={link.to} label={link.label} onClick={closeMenu} />
          ))}
          {props.me.role === "admin" ? (
            <>
              <p className="px-3 pb-1 pt-4 text-xs font-semibold uppercase tracking-wide text-slate-400">Administration</p>
              {adminLinks.map((link) => (
                <Link key={link.to} to={link.to} label={link.label} onClick={closeMenu} />
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
          <button type="button" className="button-small mt-2" onClick={() => void signOut()} disabled={logout.isPending || leaving}>
            Sign out
          </button>
        </div>
      </aside>
      <main className="min-w-0 flex-1 px-4 py-4 sm:px-6 lg:px-8 lg:py-6">{props.children}</main>
    </div>
  );
}
