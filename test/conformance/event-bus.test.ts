/** The bus conformance suite (./engine-bus.ts) against the in-process EventBus (lib/bus/bus.ts). */
import { EventBus } from "@/lib/bus";
import { describeEngineBus } from "./engine-bus";

describeEngineBus("in-process EventBus", ({ replayWindow }) => new EventBus({ bufferSize: replayWindow }));
