import { LiveConversation } from "@/components/conversation/live-conversation";

export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <LiveConversation key={id} id={id} />;
}
