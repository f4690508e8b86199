/**
 * One QueryClient per server request and one shared in the browser, as in TanStack Query's
 * Next.js App Router example: a browser client made during render would be thrown away whenever
 * React suspends, losing the cache.
 */
import { isServer, QueryClient } from "@tanstack/react-query";

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Above zero so that a page rendered from prefetched data does not refetch at once.
      queries: { staleTime: 30_000, retry: 1, refetchOnWindowFocus: true },
    },
  });
}

let browserQueryClient: QueryClient | undefined;

/** The QueryClient for this render: fresh on the server, a singleton in the browser. */
export function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}
