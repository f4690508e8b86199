import type { Metadata } from "next";
import { RoleEditor } from "@/components/roles/role-editor";

/**
 * The segment as the link wrote it: a role id, or the exact name of a role file whose name is no
 * valid id (`Power Shell 5.1.md`), which arrives percent-encoded.
 */
function segmentOf(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  return { title: segmentOf(id) };
}

export default async function RolePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <RoleEditor id={segmentOf(id)} />;
}
