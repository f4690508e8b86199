import "server-only";
/**
 * The role library on disk: one `<id>.md` file per role in a folder (`<data root>/agents`).
 * Reading never writes, so a broken file stays exactly as it is until a person saves it; every
 * write is atomic and serialized per file.
 */
import { promises as fs, type Dirent } from "node:fs";
import path from "node:path";
import { ConflictError, NotFoundError, ValidationError, zodIssues } from "@/lib/contracts/errors";
import { writeFileAtomicUnlocked, type FileQueues } from "@/lib/store/atomic";
import { applyRoleEdit, serializeNewRole } from "./edit";
import { isMap } from "yaml";
import { parseFrontmatter } from "./frontmatter";
import { catalogOf, takenIds, type CachedRole, type RoleCatalog } from "./catalog";
import type { DeriveCapabilities } from "./derived";
import { FolderCache, type FolderSnapshot } from "./folder-cache";
import { isIdFileName, ROLE_FILE, stemOf, suggestRoleId } from "./file-names";
import { parseRoleFile, roleIdFromFileName } from "./parse";
import {
  CreateRoleBodySchema,
  ImportRoleBodySchema,
  RawRoleBodySchema,
  RenameRoleFileBodySchema,
  RoleFileNameSchema,
  ROLE_ID_PATTERN,
  RoleFieldsSchema,
  RoleIdSchema,
  type CreateRoleBody,
  type ImportRoleBody,
  type RawRoleBody,
  type RenameRoleFileBody,
  type RoleAnyDetail,
  type RoleDetail,
  type RoleErrorDetail,
  type RoleListEntry,
  type UpdateRoleBody,
} from "./schema";

/** Validates a role id from a URL or body; anything that could name another path is a 400. */
function assertRoleId(id: string): string {
  const result = RoleIdSchema.safeParse(id);
  if (!result.success) throw new ValidationError("Bad role id", zodIssues(result.error).map((d) => ({ ...d, path: "id" })));
  return result.data;
}

/** Turns a file name or display name into a role id: `UI Operator` → `ui-operator`. */
export function sanitizeRoleId(text: string, lowerCase = false): string {
  const ascii = text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  const id = ascii
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "")
    .slice(0, 100)
    .replace(/[-_]+$/, "");
  return lowerCase ? id.toLowerCase() : id;
}

function errorDetails(path: string, error: RoleErrorDetail["error"]) {
  return [{ path, message: error.message, ...(error.line !== undefined ? { line: error.line } : {}) }];
}

function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}

/** The role files of a folder, in no particular order, or none when it does not exist. */
async function roleFileNames(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return [];
    throw error;
  }
  return entries.filter((e) => e.isFile() && ROLE_FILE.test(e.name)).map((e) => e.name);
}

/** What a role library is given by its creator. */
export interface RoleLibraryOptions {
  /**
   * The capability tags of a role that declares none (its list entry's `derived_capabilities`);
   * the server gives lib/governance's `deriveCapabilities`.
   */
  deriveCapabilities: DeriveCapabilities;
  /** The process's per-file write queues (lib/store/atomic.ts), shared with every other writer of the data folder. */
  queues: FileQueues;
}

/**
 * Reads, creates, edits, imports and deletes role files in one folder. Reads are served from
 * memory while the folder does not change (lib/roles/folder-cache.ts).
 */
export class RoleLibrary {
  readonly rolesDir: string;
  readonly #files: FolderCache<CachedRole>;
  readonly #derive: DeriveCapabilities;
  readonly #queues: FileQueues;
  /** What {@link list} made of the current snapshot (entries are not changed by callers). */
  #listed: ({ files: FolderSnapshot<CachedRole> } & RoleCatalog) | null = null;

  constructor(rolesDir: string, options: RoleLibraryOptions) {
    this.rolesDir = path.resolve(rolesDir);
    this.#derive = options.deriveCapabilities;
    this.#queues = options.queues;
    this.#files = new FolderCache(this.rolesDir, () => this.#readAll());
  }

  /** Every role file of the folder, read and parsed. */
  async #readAll(): Promise<Map<string, CachedRole>> {
    const names = await roleFileNames(this.rolesDir);
    const read = await Promise.all(
      names.map(async (name): Promise<[string, CachedRole]> => {
        try {
          return [name, await this.readDetail(path.join(this.rolesDir, name))];
        } catch (error) {
          return [name, { kind: "unreadable", code: (error as NodeJS.ErrnoException).code ?? "unknown error" }];
        }
      }),
    );
    return new Map(read);
  }

  /** Runs a write to the folder; whatever happens, the cached reads are dropped. */
  async #writing<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.#files.invalidate();
    }
  }

  /** Stops watching the folder (tests). */
  close(): void {
    this.#files.close();
  }

  private fileOf(id: string): string {
    return path.join(this.rolesDir, `${assertRoleId(id)}.md`);
  }

  private async readDetail(file: string): Promise<RoleAnyDetail> {
    const bytes = await fs.readFile(file);
    return parseRoleFile(path.basename(file), bytes);
  }

  /**
   * Every role file as a card, sorted by name (case-insensitive); files that do not load are
   * error entries, and one unreadable file never hides the others.
   */
  async list(): Promise<RoleListEntry[]> {
    return [...(await this.catalog()).entries];
  }

  /**
   * The listing and the detail of each role in it (by id), from one snapshot of the folder. The
   * same snapshot gives the same object, so a caller may keep what it derives from it: the
   * runtime asks on every model call.
   */
  async catalog(): Promise<RoleCatalog> {
    const files = await this.#files.get();
    if (this.#listed?.files !== files) this.#listed = { files, ...catalogOf(files, this.#derive) };
    return this.#listed;
  }

  /** One role, loaded or as an error entry with its raw text. */
  async get(id: string): Promise<RoleAnyDetail> {
    const file = this.fileOf(id);
    const cached = (await this.#files.get()).get(path.basename(file));
    if (cached && cached.kind !== "unreadable") return cached;
    // Not a plain file of the folder's listing (a link, a file that vanished or did not read): read it to say why.
    try {
      return await this.readDetail(file);
    } catch (error) {
      if (isErrno(error, "ENOENT") || isErrno(error, "EISDIR")) throw new NotFoundError(`No role "${id}"`);
      throw error;
    }
  }

  /** Creates `<id>.md` from the form; a ConflictError when that file exists already. */
  async create(input: CreateRoleBody): Promise<RoleDetail> {
    const parsed = CreateRoleBodySchema.safeParse(input);
    if (!parsed.success) throw new ValidationError("Invalid role", zodIssues(parsed.error));
    const { fields, body } = parsed.data;
    const file = this.fileOf(fields.id);
    const text = serializeNewRole(fields, body);
    const detail = parseRoleFile(path.basename(file), text);
    if (detail.kind === "error") throw new ValidationError("Invalid role", errorDetails("fields", detail.error));
    await fs.mkdir(this.rolesDir, { recursive: true });
    await this.#writing(() =>
      this.#queues.withFileLock(file, async () => {
        if (await exists(file)) throw new ConflictError(`A role "${fields.id}" exists already`, { id: fields.id });
        await writeFileAtomicUnlocked(file, text);
      }),
    );
    return detail;
  }

  /**
   * Saves the form (only changed lines are rewritten; nothing is written when nothing changed)
   * or the raw text (which must load). A stale `etag` is a ConflictError.
   */
  async update(id: string, input: UpdateRoleBody): Promise<RoleDetail> {
    const file = this.fileOf(id);
    return this.#writing(() => this.#update(file, id, input));
  }

  async #update(file: string, id: string, input: UpdateRoleBody): Promise<RoleDetail> {
    return this.#queues.withFileLock(file, async () => {
      let bytes: Buffer;
      try {
        bytes = await fs.readFile(file);
      } catch (error) {
        if (isErrno(error, "ENOENT") || isErrno(error, "EISDIR")) throw new NotFoundError(`No role "${id}"`);
        throw error;
      }
      const current = parseRoleFile(path.basename(file), bytes);
      if (input.etag !== undefined && input.etag !== current.etag) {
        throw new ConflictError(`The role "${id}" changed on disk since you opened it; reload it and try again`, {
          etag: current.etag,
        });
      }

      if ("raw" in input) {
        const next = parseRoleFile(path.basename(file), input.raw);
        if (next.kind === "error") throw new ValidationError("The role file does not load", errorDetails("raw", next.error));
        if (current.kind === "error" || input.raw !== current.raw) await writeFileAtomicUnlocked(file, input.raw);
        return next;
      }

      if (current.kind === "error") {
        throw new ValidationError(
          "This role file does not load; fix it in the raw editor first",
          errorDetails("raw", current.error),
        );
      }
      const fields = RoleFieldsSchema.omit({ id: true }).safeParse(input.fields);
      if (!fields.success) {
        throw new ValidationError(
          "Invalid role",
          zodIssues(fields.error).map((d) => ({ ...d, path: `fields.${d.path}` })),
        );
      }
      const text = applyRoleEdit(current.raw, { fields: fields.data, body: input.body });
      if (text === current.raw) return current;
      const next = parseRoleFile(path.basename(file), text);
      if (next.kind === "error") throw new ValidationError("Invalid role", errorDetails("fields", next.error));
      await writeFileAtomicUnlocked(file, text);
      return next;
    });
  }

  /** Deletes `<id>.md`; a NotFoundError when there is none. */
  async remove(id: string): Promise<void> {
    const file = this.fileOf(id);
    await this.#writing(() => this.#remove(file, id));
  }

  async #remove(file: string, id: string): Promise<void> {
    await this.#queues.withFileLock(file, async () => {
      try {
        await fs.unlink(file);
      } catch (error) {
        if (isErrno(error, "ENOENT")) throw new NotFoundError(`No role "${id}"`);
        throw error;
      }
    });
  }

  /**
   * Imports an existing `.md` role file, stored byte for byte. Its id is the frontmatter `id`,
   * else the uploaded file's name, else its `name`, made safe for a file name.
   */
  async importRole(input: ImportRoleBody): Promise<RoleDetail> {
    const parsed = ImportRoleBodySchema.safeParse(input);
    if (!parsed.success) throw new ValidationError("Invalid import", zodIssues(parsed.error));
    const { content, file_name: fileName, overwrite } = parsed.data;
    const probe = parseRoleFile("import.md", content);
    if (probe.kind === "error") throw new ValidationError("The file is not a valid role", errorDetails("content", probe.error));
    const id = importIdOf(content, fileName);
    const file = this.fileOf(id);
    const detail = parseRoleFile(path.basename(file), content);
    if (detail.kind === "error") throw new ValidationError("The file is not a valid role", errorDetails("content", detail.error));
    await fs.mkdir(this.rolesDir, { recursive: true });
    await this.#writing(() =>
      this.#queues.withFileLock(file, async () => {
        if (!overwrite && (await exists(file))) {
          throw new ConflictError(`A role "${id}" exists already; import with overwrite to replace it`, { id });
        }
        await writeFileAtomicUnlocked(file, content);
      }),
    );
    return detail;
  }

  /**
   * A listed file by its exact name (for names that are no valid id). The name is only used once
   * the folder's listing holds it, so no name from a request reaches the file system unchecked.
   */
  async #listedFile(name: string): Promise<string> {
    const checked = RoleFileNameSchema.safeParse(name);
    if (!checked.success) throw new ValidationError("Bad role file name", zodIssues(checked.error).map((d) => ({ ...d, path: "name" })));
    const listed = (await roleFileNames(this.rolesDir)).find((n) => n === checked.data);
    if (listed === undefined) throw new NotFoundError(`No role file "${name}"`);
    return path.join(this.rolesDir, listed);
  }

  /** The file `name` of the folder, with the id a rename would give it when it is misnamed. */
  async getFile(name: string): Promise<RoleAnyDetail> {
    const file = await this.#listedFile(name);
    const files = await this.#files.get();
    const cached = files.get(path.basename(file));
    const detail = cached && cached.kind !== "unreadable" ? cached : await this.readDetail(file);
    return isIdFileName(detail.file) ? detail : { ...detail, suggested_id: suggestRoleId(detail.file, takenIds(files.keys())) };
  }

  /** Saves the raw text of the file `name` (it must load); a stale `etag` is a ConflictError. */
  async saveFile(name: string, input: RawRoleBody): Promise<RoleAnyDetail> {
    const body = RawRoleBodySchema.safeParse(input);
    if (!body.success) throw new ValidationError("Invalid role", zodIssues(body.error));
    const file = await this.#listedFile(name);
    await this.#writing(() => this.#update(file, stemOf(path.basename(file)), body.data));
    return this.getFile(path.basename(file));
  }

  /** Deletes the file `name`; a NotFoundError when the folder does not list it. */
  async removeFile(name: string): Promise<void> {
    const file = await this.#listedFile(name);
    await this.#writing(() => this.#remove(file, name));
  }

  /**
   * Renames a listed file to `<id>.md` (the suggested id when none is given). Never overwrites:
   * a ConflictError when a file of that id exists.
   */
  async renameFile(input: RenameRoleFileBody): Promise<RoleAnyDetail> {
    const body = RenameRoleFileBodySchema.safeParse(input);
    if (!body.success) throw new ValidationError("Invalid rename", zodIssues(body.error));
    const source = await this.#listedFile(body.data.file);
    const id = body.data.id ?? suggestRoleId(path.basename(source), takenIds(await roleFileNames(this.rolesDir)));
    const target = this.fileOf(id);
    if (target === source) return this.get(id);
    // Both files locked, always in the same order, so two renames that cross cannot wait on each other.
    const [first, second] = [source, target].sort();
    await this.#writing(() =>
      this.#queues.withFileLock(first!, () =>
        this.#queues.withFileLock(second!, async () => {
          const conflict = () => new ConflictError(`A role "${id}" exists already; choose another id or delete that role first`, { id });
          if (await exists(target)) throw conflict();
          // link fails when the target exists, so a file made meanwhile by another process is not replaced.
          try {
            await fs.link(source, target);
          } catch (error) {
            if (isErrno(error, "EEXIST")) throw conflict();
            if (isErrno(error, "ENOENT")) throw new NotFoundError(`No role file "${body.data.file}"`);
            // A disk without hard links: the target was checked absent under this process's lock.
            if (isErrno(error, "EPERM") || isErrno(error, "ENOTSUP") || isErrno(error, "ENOSYS")) return fs.rename(source, target);
            throw error;
          }
          await fs.unlink(source);
        }),
      ),
    );
    return this.get(id);
  }

  /**
   * Copies the product's own roles from `repoAgentsDir` when this library has no role file at
   * all (first start). Never touches an existing file. Returns the ids copied.
   */
  async seedFromRepo(repoAgentsDir: string): Promise<string[]> {
    if ((await roleFileNames(this.rolesDir)).length > 0) return [];
    const names = (await roleFileNames(repoAgentsDir)).filter((n) => ROLE_ID_PATTERN.test(roleIdFromFileName(n)));
    if (names.length === 0) return [];
    await fs.mkdir(this.rolesDir, { recursive: true });
    const copied: string[] = [];
    this.#files.invalidate();
    for (const name of names.sort()) {
      const bytes = await fs.readFile(path.join(repoAgentsDir, name));
      const target = path.join(this.rolesDir, name);
      const wrote = await this.#queues.withFileLock(target, async () => {
        if (await exists(target)) return false;
        await writeFileAtomicUnlocked(target, bytes);
        return true;
      });
      if (wrote) copied.push(roleIdFromFileName(name));
    }
    this.#files.invalidate();
    return copied;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch (error) {
    if (isErrno(error, "ENOENT")) return false;
    throw error;
  }
}

/** The id an imported file gets: frontmatter `id`, else the file name's stem, else `name`. */
function importIdOf(content: string, fileName: string | undefined): string {
  const parsed = parseFrontmatter(content);
  const map = parsed.ok && isMap(parsed.value.doc.contents) ? parsed.value.doc.contents : undefined;
  const scalar = (key: string) => {
    const value: unknown = map?.get(key);
    return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
  };
  const candidates: string[] = [];
  const declared = scalar("id");
  if (declared) candidates.push(sanitizeRoleId(declared));
  if (fileName) candidates.push(sanitizeRoleId(roleIdFromFileName(fileName)));
  const name = scalar("name");
  if (name) candidates.push(sanitizeRoleId(name, true));
  const id = candidates.find((c) => ROLE_ID_PATTERN.test(c));
  if (!id) {
    throw new ValidationError("Cannot tell the role's id: add an 'id:' line to the frontmatter", [
      { path: "content", message: "no usable id, file name or name" },
    ]);
  }
  return id;
}
