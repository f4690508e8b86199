import { answer, authorOf, readBody, route } from "@/lib/http";
import { RedactionSettingsBodySchema } from "@/lib/memory";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The internal account-id patterns the redaction pass masks (models.json `redaction.account_patterns`). */
export const GET = route(async () => {
  const { readRedactionSettings } = await serverCore();
  const app = await getApp();
  return answer(RedactionSettingsBodySchema, await readRedactionSettings(app.root));
});

/** Replaces them (each checked; a refused pattern is a 400 naming it); only that key of models.json changes. */
export const PUT = route(async (request) => {
  const body = await readBody(request, RedactionSettingsBodySchema);
  const { writeRedactionSettings } = await serverCore();
  const app = await getApp();
  const settings = await writeRedactionSettings(app.queues, app.root, body);
  await (await getApp()).activity.record(authorOf(request), "settings_changed", "memory/redaction");
  return answer(RedactionSettingsBodySchema, settings);
});
