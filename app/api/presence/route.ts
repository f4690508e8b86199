import { answer, route } from "@/lib/http";
import { PresenceCountsSchema } from "@/lib/contracts/presence";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** How many people have each conversation open now (the index's counts; nobody: left out). */
export const GET = route(async () => {
  const { presence } = await getApp();
  return answer(PresenceCountsSchema, { counts: await presence.counts() });
});
