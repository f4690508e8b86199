/** The storage conformance suite (./engine-storage.ts) against the in-memory test store (test/support/memory-storage.ts). */
import { memoryStorageFactory } from "@/test/support/memory-storage";
import { describeEngineStorage } from "./engine-storage";

describeEngineStorage("in-memory store", memoryStorageFactory);
