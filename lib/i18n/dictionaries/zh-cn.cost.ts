/** Token 用量与费用的中文文字（./zh-cn.ts 中 zhCN 的一部分）。 */
import type { enCost } from "./en.cost";

export const zhCNCost: Record<keyof typeof enCost, string> = {
  "cost.input": "输入",
  "cost.cached": "缓存 {n}",
  "cost.output": "输出",
  "cost.cost": "费用",
  "cost.tokens": "Token",
  "cost.byAgent": "按智能体",
  "cost.byModel": "按模型",
  "cost.model": "模型",
  "cost.note": "费用以美元计，按每次调用当时的价格计算（随调用记录）。",
  "cost.unpriced": "{total} 次调用中有 {n} 次没有价格，未计入费用。",
  "cost.noPrices": "这些模型没有设置价格，因此只显示 token。在 models.json 中为模型添加价格即可显示费用。",
  "cost.agentUsage": "{tokens} tokens · 输入 {input} · 输出 {output} · {calls} 次调用",
};
