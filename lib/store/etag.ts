/**
 * The etag of a file a person may also edit by hand (a role file, models.json): the hash of its
 * bytes. An editor sends back the etag it read; a save whose etag is no longer the file's is
 * refused (409), so a hand edit made while the page was open is never overwritten.
 */
import { createHash } from "node:crypto";

/** Content hash of a file: sha256 of its bytes, first 16 hex digits. */
export function computeEtag(content: string | Uint8Array): string {
  return createHash("sha256")
    .update(typeof content === "string" ? Buffer.from(content, "utf8") : content)
    .digest("hex")
    .slice(0, 16);
}
