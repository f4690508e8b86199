/**
 * What a model is told when one of its tools failed unexpectedly (a file system error, a bug, an
 * injected fault). An error that escapes a tool must become a tool result the model can read,
 * never an exception that kills the agent's loop. Pure: no I/O.
 *
 * The text names what went wrong in plain words and never repeats the raw error message: Node's
 * file system errors carry absolute paths (the project's real location, where a symlink points),
 * which a model has no business seeing.
 */
import { AstrionError, CorruptFileError } from "@/lib/contracts/errors";
import type { FAULT_NOTICE_REASONS } from "@/lib/contracts/events";

const ERRNO_TEXT: Record<string, string> = {
  ENAMETOOLONG: "a file or folder name in the path is too long",
  EACCES: "permission denied by the operating system",
  EPERM: "the operating system does not allow this",
  EISDIR: "the path is a folder, not a file",
  ENOTDIR: "a part of the path is a file, not a folder",
  ENOENT: "the file or folder does not exist",
  EEXIST: "the file already exists",
  ELOOP: "the path goes through too many symbolic links",
  EMFILE: "too many files are open on the server; try again shortly",
  ENFILE: "too many files are open on the server; try again shortly",
  ENOSPC: "the disk is full",
  EROFS: "the file system is read-only",
  EIO: "the disk reported an input/output error",
  EBUSY: "the file is busy",
  EINVAL: "the path or argument is not valid here",
};

/** The errno code of a Node system error, if it is one. */
function errnoCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : null;
}

/** Whether `error` is an expected refusal (bad arguments, a forbidden path) rather than a fault. */
export function isRefusal(error: unknown): error is AstrionError {
  return error instanceof AstrionError && error.status < 500;
}

/**
 * The message a model gets for a tool that threw: the refusal's own message for expected
 * refusals, else "<tool> failed: <plain reason>".
 */
export function toolFailureMessage(tool: string, error: unknown): string {
  if (isRefusal(error)) return error.message;
  const code = errnoCode(error);
  const reason = code ? (Object.hasOwn(ERRNO_TEXT, code) ? ERRNO_TEXT[code] : `the operating system reported ${code}`) : "an internal error on the server (it is in the server's log)";
  return `${tool} failed: ${reason}.`;
}

/** A short, path-free description of a fault for notices and the timeline. */
export function faultSummary(error: unknown): string {
  const code = errnoCode(error);
  if (code) return code;
  if (error instanceof Error) return error.name === "Error" ? "internal error" : error.name;
  return "internal error";
}

/** The kind of a fault by its errno code, as notices name it (`notice.cause.<reason>`). */
const ERRNO_REASON: Record<string, (typeof FAULT_NOTICE_REASONS)[number]> = {
  ENOSPC: "fault_disk_full",
  EDQUOT: "fault_disk_full",
  EACCES: "fault_permission",
  EPERM: "fault_permission",
  EROFS: "fault_read_only",
  ENOENT: "fault_missing",
  ENOTDIR: "fault_missing",
  EMFILE: "fault_too_many_files",
  ENFILE: "fault_too_many_files",
  EIO: "fault_io",
};

/** What kind of fault `error` is, for a notice the page words in its language (its detail stays in the log). */
export function faultReason(error: unknown): (typeof FAULT_NOTICE_REASONS)[number] {
  const code = errnoCode(error);
  if (code && Object.hasOwn(ERRNO_REASON, code)) return ERRNO_REASON[code]!;
  if (error instanceof CorruptFileError) return "fault_corrupt";
  return "fault_internal";
}
