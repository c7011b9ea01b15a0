import { useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect } from "react";
import { Navigate, Route, Routes, useLocation } from "react-router";
import { LoginPage } from "./pages/login";
import { SetupPage } from "./pages/setup";
import { isClientError, setSignedOutHandler, useTRPC } from "./trpc";

// Everything behind the sign-in is loaded on demand, so that the sign-in page downloads only what it shows.
const Layout = lazy(() => import("./components/layout").then((module) => ({ default: module.Layout })));
const DashboardPage = lazy(() => import("./pages/dashboard").then((module) => ({ default: module.DashboardPage })));
const TokensPage = lazy(() => import("./pages/tokens").then((module) => ({ default: module.TokensPage })));
const LogsPage = lazy(() => import("./pages/logs").then((module) => ({ default: module.LogsPage })));
const QuickStartPage = lazy(() => import("./pages/quick-start").then((module) => ({ default: module.QuickStartPage })));
const ChannelsPage = lazy(() => import("./pages/channels").then((module) => ({ default: module.ChannelsPage })));
const ModelsPage = lazy(() => import("./pages/models").then((module) => ({ default: module.ModelsPage })));
const AlertsPage = lazy(() => import("./pages/alerts").then((module) => ({ default: module.AlertsPage })));
const McpServersPage = lazy(() => import("./pages/mcp-servers").then((module) => ({ default: module.McpServersPage })));
const UsersPage = lazy(() => import("./pages/users").then((module) => ({ default: module.UsersPage })));
const TeamsPage = lazy(() => import("./pages/teams").then((module) => ({ default: module.TeamsPage })));
const TeamDetailPage = lazy(() => import("./pages/team-detail").then((module) => ({ default: module.TeamDetailPage })));
const AuditPage = lazy(() => import("./pages/audit").then((module) => ({ default: module.AuditPage })));
const ApiKeysPage = lazy(() => import("./pages/api-keys").then((module) => ({ default: module.ApiKeysPage })));

const loading = <p className="p-8 text-sm text-slate-500">Loading…</p>;

export function App() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const location = useLocation();
  const me = useQuery({ ...trpc.auth.me.queryOptions(), retry: false, staleTime: 60_000 });
  const setup = useQuery(trpc.auth.setupStatus.queryOptions());

  useEffect(() => {
    setSignedOutHandler(() => void queryClient.resetQueries({ queryKey: trpc.auth.me.queryKey() }));
  }, [queryClient, trpc]);

  if (me.isPending || setup.isPending) return loading;
  const signedOut = me.isError && isClientError(me.error, "UNAUTHORIZED");
  if (me.isError && !signedOut) return <p className="p-8 text-sm text-red-600">The console cannot reach the server: {me.error.message}</p>;

  if (signedOut || !me.data) {
    const needsSetup = setup.data?.needsSetup === true;
    return (
      <Routes>
        <Route path="/setup" element={needsSetup ? <SetupPage /> : <Navigate to="/login" replace />} />
        <Route path="/login" element={needsSetup ? <Navigate to="/setup" replace /> : <LoginPage />} />
        <Route path="*" element={<Navigate to={needsSetup ? "/setup" : "/login"} replace state={{ from: location.pathname }} />} />
      </Routes>
    );
  }

  const isAdmin = me.data.role === "admin";
  return (
    <Suspense fallback={loading}>
      <Layout me={me.data}>
        <Suspense fallback={loading}>
          <Routes>
            <Route path="/" element={<DashboardPage me={me.data} />} />
            <Route path="/tokens" element={<TokensPage isAdmin={isAdmin} />} />
            <Route path="/logs" element={<LogsPage isAdmin={isAdmin} />} />
            <Route path="/quick-start" element={<QuickStartPage />} />
            <Route path="/alerts" element={<AlertsPage isAdmin={isAdmin} />} />
            <Route path="/teams" element={<TeamsPage isAdmin={isAdmin} />} />
            <Route path="/teams/:id" element={<TeamDetailPage isAdmin={isAdmin} />} />
            {isAdmin ? <Route path="/channels" element={<ChannelsPage />} /> : null}
            {isAdmin ? <Route path="/models" element={<ModelsPage />} /> : null}
            {isAdmin ? <Route path="/users" element={<UsersPage currentUserId={me.data.id} />} /> : null}
            {isAdmin ? <Route path="/mcp-servers" element={<McpServersPage />} /> : null}
            {isAdmin ? <Route path="/audit" element={<AuditPage />} /> : null}
            {isAdmin ? <Route path="/api-keys" element={<ApiKeysPage />} /> : null}
            <Route path="*" element={<AdminOnly isAdmin={isAdmin} />} />
          </Routes>
        </Suspense>
      </Layout>
    </Suspense>
  );
}

const adminPaths: Record<string, string> = { "/channels": "Channels", "/models": "Models & prices", "/users": "Users", "/mcp-servers": "MCP servers", "/audit": "Audit log", "/api-keys": "API keys" };

/** An unknown path goes to the dashboard; an administrators' page opened by a user says why it is not shown. */
function AdminOnly(props: { isAdmin: boolean }) {
  const location = useLocation();
  const page = adminPaths[location.pathname];
  if (!page || props.isAdmin) return <Navigate to="/" replace />;
  return (
    <div className="card max-w-xl p-5" role="alert">
      <h1 className="text-lg font-semibold">{page} is for administrators</h1>
      <p className="mt-1 text-sm text-slate-600">Your account is a user account. Ask an administrator if you need access.</p>
    </div>
  );
}
