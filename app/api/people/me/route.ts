import { MeAnswerSchema } from "@/lib/contracts/people";
import { answer, identityOf, route } from "@/lib/http";
import { guardConfigFromEnv } from "@/lib/security";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Who this browser is (name, role, how they signed in), and whether the server has people. */
export const GET = route(async (request) => {
  return answer(MeAnswerSchema, { me: identityOf(request), team: Boolean(guardConfigFromEnv().token) });
});
