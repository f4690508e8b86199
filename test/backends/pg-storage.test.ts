/**
 * The storage conformance suite (test/conformance/engine-storage.ts) against the PostgreSQL store
 * (lib/pg), on a throwaway cluster this file starts (test/support/pg-cluster.ts).
 */
import { describeEngineStorage } from "@/test/conformance/engine-storage";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { pgStorageFactory } from "@/test/support/pg-storage";

const pg = pgClusterForFile();

describeEngineStorage("PostgreSQL", pgStorageFactory(() => pg.cluster));
