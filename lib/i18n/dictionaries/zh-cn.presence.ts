/** 在场的文字：还有谁打开了对话、正在输入、索引页的人数（issue 32；并入 ./zh-cn.ts 的 zhCN）。 */
import type { enPresence } from "./en.presence";

export const zhCNPresence: Record<keyof typeof enPresence, string> = {
  "presence.label": "也在这里",
  "presence.drawer": "正在查看智能体 {id}",
  "presence.you": "只有你打开了这个对话。",
  "presence.typingOne": "{name} 正在输入…",
  "presence.typingMany": "{names} 正在输入…",
  "presence.count": "{n} 人在看",
  "presence.countTitle": "打开这个对话的人数：{n}",
};
