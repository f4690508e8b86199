/** The storage conformance suite (./engine-storage.ts) against the file store (lib/store through `fileStorage`). */
import { fileStorageFactory } from "@/test/support/file-storage";
import { describeEngineStorage } from "./engine-storage";

describeEngineStorage("file store", fileStorageFactory);
