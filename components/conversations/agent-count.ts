/** How many agents a conversation has, as the index says it: "1 agent", "3 agents" (one form in Chinese). Pure. */
import type { TranslateFn } from "@/lib/i18n";

export function agentCountText(t: TranslateFn, n: number): string {
  return n === 1 ? t("conv.agentCount.one") : t("conv.agentCount", { n });
}
