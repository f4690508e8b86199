/**
 * The workspace of one server: the tools confined to a project folder (./tools.ts), the path
 * resolution behind them (./resolve.ts) and the project-folder checks (./project-folder.ts), bound
 * to the parts of the process they share with everything else: the protected folders
 * (./protected.ts) and the per-file write queues (lib/store/atomic.ts). The composition root
 * (lib/server/app.ts) makes one, with the folders it protects at boot, and hands it to the store
 * (its project-folder check), the engine and the knowledge service: every route bundle of the
 * process then checks against the same folders, and a `write_file` queues behind every other
 * write of that file.
 *
 * Its members are functions, not methods: a caller may take them apart
 * (`const { readFile } = workspace`).
 */
import "server-only";
import { confirmProjectFolder, projectFolderCheckFor, type ProjectFolderChanged, type ProjectFolderCheck } from "./project-folder";
import type { ProtectedFolders, ProtectedInput } from "./protected";
import { resolveProjectPath, type ResolvedPath, type ResolveOptions } from "./resolve";
import type { ListResult, ReadResult, SearchResult } from "./results";
import type { WorkspaceParts } from "./parts";
import { listFiles, readFile, searchFiles, writeFile, type ListOptions, type ReadOptions, type SearchOptions, type WriteOptions, type WriteResult } from "./tools";

export type { WorkspaceParts };

/** The workspace tools and checks bound to one process's {@link WorkspaceParts}. */
export class Workspace {
  readonly parts: WorkspaceParts;
  /** {@link listFiles} of ./tools.ts. */
  readonly listFiles: (projectRoot: string, requestedPath?: string, options?: ListOptions) => Promise<ListResult>;
  /** {@link readFile} of ./tools.ts. */
  readonly readFile: (projectRoot: string, requestedPath: string, options?: ReadOptions) => Promise<ReadResult>;
  /** {@link searchFiles} of ./tools.ts. */
  readonly searchFiles: (projectRoot: string, query: string, options?: SearchOptions) => Promise<SearchResult>;
  /** {@link writeFile} of ./tools.ts, queued in this workspace's write queues. */
  readonly writeFile: (projectRoot: string, requestedPath: string, content: string, options?: WriteOptions) => Promise<WriteResult>;
  /** {@link resolveProjectPath} of ./resolve.ts. */
  readonly resolveProjectPath: (projectRoot: string, requestedPath: string, options?: ResolveOptions) => Promise<ResolvedPath>;
  /** {@link confirmProjectFolder} of ./project-folder.ts. */
  readonly confirmProjectFolder: (recorded: unknown, established: string | null, extra?: readonly ProtectedInput[]) => Promise<ProjectFolderCheck | ProjectFolderChanged>;
  /** {@link projectFolderCheckFor} of ./project-folder.ts: the check a data folder's store runs. */
  readonly projectFolderCheckFor: (dataRoot: string) => (value: unknown) => Promise<string>;

  constructor(parts: WorkspaceParts) {
    this.parts = parts;
    const folders = parts.protectedFolders;
    this.listFiles = (projectRoot, requestedPath, options) => listFiles(parts, projectRoot, requestedPath, options);
    this.readFile = (projectRoot, requestedPath, options) => readFile(parts, projectRoot, requestedPath, options);
    this.searchFiles = (projectRoot, query, options) => searchFiles(parts, projectRoot, query, options);
    this.writeFile = (projectRoot, requestedPath, content, options) => writeFile(parts, projectRoot, requestedPath, content, options);
    this.resolveProjectPath = (projectRoot, requestedPath, options) => resolveProjectPath(folders, projectRoot, requestedPath, options);
    this.confirmProjectFolder = (recorded, established, extra) => confirmProjectFolder(folders, recorded, established, extra);
    this.projectFolderCheckFor = (dataRoot) => projectFolderCheckFor(folders, dataRoot);
  }

  /** The server's protected folders. */
  get protectedFolders(): ProtectedFolders {
    return this.parts.protectedFolders;
  }
}
