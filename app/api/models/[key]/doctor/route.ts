import { answer, parseWith, route } from "@/lib/http";
import { DoctorReportSchema, ModelKeySchema } from "@/lib/contracts/http";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The connection doctor on one registry entry: server, key, model, stream, tool call, parallel
 * tool calls, thinking switch and usage, each green, amber or red with its fix. A server that
 * fails answers 200 with red lines; 404 for an unknown key, 400 for the offline model.
 */
export const POST = route<{ key: string }>(async (_request, params) => {
  const key = parseWith(ModelKeySchema, params.key, "Bad model key");
  const { doctorForKey } = await serverCore();
  const app = await getApp();
  await app.keys.refresh();
  return answer(DoctorReportSchema, await doctorForKey(app.root, key, { storedKey: (ref) => app.keys.peek(ref) }));
});
