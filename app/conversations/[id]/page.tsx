import { LiveConversation } from "@/components/conversation/live-conversation";

type Search = Record<string, string | string[] | undefined>;

/** `?message=<message_id>[&agent=<n>]`: opened from a search hit, at that message (in that agent's drawer). */
export default async function ConversationPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Search> }) {
  const { id } = await params;
  const search = await searchParams;
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const message = first(search.message);
  const agent = first(search.agent);
  const focus = {
    message: message && message.length <= 200 ? message : undefined,
    agent: agent && /^[1-9]\d{0,12}$/.test(agent) ? Number(agent) : undefined,
  };
  return <LiveConversation key={`${id}:${focus.message ?? ""}:${focus.agent ?? ""}`} id={id} focus={focus} />;
}
