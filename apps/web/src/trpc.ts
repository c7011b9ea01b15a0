import type { AppRouter } from "@tollgate/console";
import { QueryCache, QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import superjson from "superjson";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

export type AppClientError = TRPCClientError<AppRouter>;

export function isClientError(error: unknown, code?: string): error is AppClientError {
  return error instanceof TRPCClientError && (code === undefined || error.data?.code === code);
}

/** Called when the server says the session is gone, to send the user back to sign-in. */
let onSignedOut: () => void = () => {};
export function setSignedOutHandler(handler: () => void): void {
  onSignedOut = handler;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError(error, query) {
        // auth.me failing is how the app learns it is signed out; any other query failing so means the
        // session ended meanwhile, and auth.me is asked again.
        const isMe = JSON.stringify(query.queryKey[0]) === JSON.stringify(["auth", "me"]);
        if (!isMe && isClientError(error, "UNAUTHORIZED")) onSignedOut();
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        // A 4xx will not get better by asking again.
        retry: (failureCount, error) => !(isClientError(error) && (error.data?.httpStatus ?? 500) < 500) && failureCount < 2,
        refetchOnWindowFocus: false,
      },
    },
  });
}

export function createClient() {
  return createTRPCClient<AppRouter>({
    // The server refuses batches of more than 20 procedures (MAX_BATCH_SIZE in apps/console/src/create-console.ts).
    links: [httpBatchLink({ url: "/trpc", transformer: superjson, maxItems: 20 })],
  });
}
