/** 服务商配置（provider profile）的中文文字：服务器启动参数通知与配置的来源（./zh-cn.ts 中 zhCN 的一部分）。 */
import type { enProviders } from "./en.providers";

export const zhCNProviders: Record<keyof typeof enProviders, string> = {
  "notice.msg.leaderServerFlag": "团队负责人的模型（{model}）由 {server} 提供，该服务器因启动时缺少参数而拒绝了请求：请用 {flag} 重新启动 {server}，然后发送一条消息继续。",
  "notice.msg.agentServerFlag": "智能体 {agent} 的模型（{model}）由 {server} 提供，该服务器因启动时缺少参数而拒绝了请求：请用 {flag} 重新启动 {server}，然后发送一条消息继续。",
  "models.provider.named": "服务商：{profile}（在 models.json 中指定）",
  "models.provider.base_url": "服务商：{profile}（根据 base URL 推断：{detail}）",
  "models.provider.server": "服务商：{profile}（根据服务器的 /v1/models 推断：{detail}）",
  "models.provider.default": "服务商：{profile}（无从推断：按通用 OpenAI 兼容方式调用）",
};
