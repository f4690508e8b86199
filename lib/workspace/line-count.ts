/**
 * Counting the lines of a file `read_file` shows only the beginning of, so its result can say
 * "lines 1-240 of 5312". Bounded: a file is counted only up to a size, in chunks of 1 MiB.
 */
import "server-only";
import { read } from "node:fs";
import { promisify } from "node:util";

const readAt = promisify(read);

/** Newlines in `bytes`. */
function countNewlines(bytes: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}

/**
 * Lines of the open file whose first bytes are `head` (its newlines, and one more when it does
 * not end with one): the rest is read in chunks. Null for a file of more than `maxBytes` bytes.
 */
export async function totalLinesOf(fd: number, head: Uint8Array, size: number, maxBytes: number): Promise<number | null> {
  if (size > maxBytes) return null;
  let newlines = countNewlines(head);
  let last = head.at(-1);
  const chunk = Buffer.alloc(1 << 20);
  for (let at = head.length; ; ) {
    const { bytesRead } = await readAt(fd, chunk, 0, chunk.length, at);
    if (bytesRead === 0) break;
    const part = chunk.subarray(0, bytesRead);
    newlines += countNewlines(part);
    last = part[bytesRead - 1];
    at += bytesRead;
    // a file that grew while it was counted
    if (at > maxBytes) return null;
  }
  return last === undefined || last === 0x0a ? newlines : newlines + 1;
}
