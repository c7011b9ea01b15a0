import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { Navigate, Route, Routes, useLocation } from "react-router";
import { Layout } from "./components/layout";
import { ChannelsPage } from "./pages/channels";
import { DashboardPage } from "./pages/dashboard";
import { LoginPage } from "./pages/login";
import { LogsPage } from "./pages/logs";
import { ModelsPage } from "./pages/models";
import { QuickStartPage } from "./pages/quick-start";
import { SetupPage } from "./pages/setup";
import { TokensPage } from "./pages/tokens";
import { UsersPage } from "./pages/users";
import { isClientError, setSignedOutHandler, useTRPC } from "./trpc";

export function App() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const location = useLocation();
  const me = useQuery({ ...trpc.auth.me.queryOptions(), retry: false, staleTime: 60_000 });
  const setup = useQuery(trpc.auth.setupStatus.queryOptions());

  useEffect(() => {
    setSignedOutHandler(() => void queryClient.resetQueries({ queryKey: trpc.auth.me.queryKey() }));
  }, [queryClient, trpc]);

  if (me.isPending || setup.isPending) return <p className="p-8 text-sm text-slate-500">Loading…</p>;
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
    <Layout me={me.data}>
      <Routes>
        <Route path="/" element={<DashboardPage me={me.data} />} />
        <Route path="/tokens" element={<TokensPage isAdmin={isAdmin} />} />
        <Route path="/logs" element={<LogsPage isAdmin={isAdmin} />} />
        <Route path="/quick-start" element={<QuickStartPage />} />
        {isAdmin ? <Route path="/channels" element={<ChannelsPage />} /> : null}
        {isAdmin ? <Route path="/models" element={<ModelsPage />} /> : null}
        {isAdmin ? <Route path="/users" element={<UsersPage currentUserId={me.data.id} />} /> : null}
        <Route path="*" element={<Navigate to="/" replace />} />
      </Routes>
    </Layout>
  );
}
