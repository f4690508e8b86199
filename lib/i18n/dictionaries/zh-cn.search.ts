/** 历史搜索页的文字（并入 ./zh-cn.ts 的 zhCN）。 */
import type { enSearch } from "./en.search";

export const zhCNSearch: Record<keyof typeof enSearch, string> = {
  "search.title": "搜索历史",
  "search.subtitle": "搜索所有会话中的每条消息，包括团队负责人和子智能体的消息。",
  "search.open": "搜索全部消息",
  "search.query.label": "搜索内容",
  "search.query.placeholder": "词语、\"短语\"、中文…",
  "search.any": "不限",
  "search.filter.status": "会话",
  "search.filter.agent": "智能体",
  "search.filter.agentPlaceholder": "负责人或编号",
  "search.filter.role": "角色",
  "search.filter.model": "模型",
  "search.filter.messageRole": "消息",
  "search.filter.from": "起始日期",
  "search.filter.to": "结束日期",
  "search.messageRole.user": "发给智能体的",
  "search.messageRole.assistant": "智能体的回答",
  "search.messageRole.tool": "工具结果",
  "search.hint": "输入词语或短语，搜索所有会话。",
  "search.empty": "没有匹配的消息。",
  "search.more": "更多结果",
  "search.indexing": "正在根据会话文件重建搜索索引，结果可能暂时不完整。",
};
