/**
 * The workspace of one server: the tools confined to a project folder (./tools.ts) and the path
 * resolution behind them (./resolve.ts), bound to the parts of the process they share with every
 * other writer: the per-file write queues (lib/store/atomic.ts). The composition root
 * (lib/server/app.ts) makes one and hands it to the engine and the knowledge service, so a
 * `write_file` queues behind every other write of that file, whichever route bundle started it.
 *
 * Its members are functions, not methods: a caller may take them apart
 * (`const { readFile } = workspace`).
 */
import "server-only";
import type { FileQueues } from "@/lib/store/atomic";
import { resolveProjectPath, type ResolvedPath, type ResolveOptions } from "./resolve";
import type { ListResult, ReadResult, SearchResult } from "./results";
import { listFiles, readFile, searchFiles, writeFile, type ListOptions, type ReadOptions, type SearchOptions, type WriteOptions, type WriteResult } from "./tools";

/** What a workspace is made from: parts the composition root makes once per process. */
export interface WorkspaceParts {
  /** The process's per-file write queues. */
  readonly queues: FileQueues;
}

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

  constructor(parts: WorkspaceParts) {
    this.parts = parts;
    this.listFiles = (projectRoot, requestedPath, options) => listFiles(projectRoot, requestedPath, options);
    this.readFile = (projectRoot, requestedPath, options) => readFile(projectRoot, requestedPath, options);
    this.searchFiles = (projectRoot, query, options) => searchFiles(projectRoot, query, options);
    this.writeFile = (projectRoot, requestedPath, content, options) => writeFile(parts, projectRoot, requestedPath, content, options);
    this.resolveProjectPath = (projectRoot, requestedPath, options) => resolveProjectPath(projectRoot, requestedPath, options);
  }
}
