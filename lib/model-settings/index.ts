import "server-only";
/**
 * Settings → Models (issue 29): models.json edited from the UI with its etag (./service.ts over the
 * pure ./edit.ts), API keys typed there kept in the key store (lib/models/key-store.ts), the model
 * list of a server (./upstream.ts) and the model servers found on 127.0.0.1 (./discovery.ts over
 * the pure ./found-servers.ts). The browser imports ./schema.ts and ./found-servers.ts directly.
 */
export { deleteModelEntry, publicModelList, putModelEntry, readModelSettings, setDefaultModel } from "./service";
export { discoveryConfigFromEnv, LocalDiscovery } from "./discovery";
export { listUpstreamModels } from "./upstream";
