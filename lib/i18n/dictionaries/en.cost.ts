/** English strings of token usage and cost (part of {@link en} in ./en.ts). */
export const enCost = {
  "cost.input": "Input",
  "cost.cached": "cached {n}",
  "cost.output": "Output",
  "cost.cost": "Cost",
  "cost.tokens": "Tokens",
  "cost.byAgent": "By agent",
  "cost.byModel": "By model",
  "cost.model": "Model",
  "cost.note": "Cost in US dollars at the prices each call was made at (recorded with the call).",
  "cost.unpriced": "{n} of {total} calls had no prices and are not in the cost.",
  "cost.noPrices": "No prices for these models, so tokens only. Add prices to a model in models.json to see cost.",
  "cost.agentUsage": "{tokens} tokens · input {input} · output {output} · {calls} calls",
};
