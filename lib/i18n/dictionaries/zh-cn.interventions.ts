/** 团队运行中的干预（issue 32）：输入框的处理方式、排队的消息、撤回的任务、被取消的回答（并入 ./zh-cn.ts 的 zhCN）。 */
import type { enInterventions } from "./en.interventions";

export const zhCNInterventions: Record<keyof typeof enInterventions, string> = {
  "intervention.strategyLabel": "团队工作时",
  "intervention.strategy.steer": "插话：在它的下一步读到",
  "intervention.strategy.queue": "排队：当前工作结束后处理",
  "intervention.strategy.interrupt": "打断：取消它正在给出的回答",
  "intervention.strategy.new_task": "新任务：作为另一个请求",
  "intervention.queued": "排队的消息（{n}）",
  "intervention.queuedBy": "{name}",
  "intervention.toAgent": "发给智能体 {agent}",
  "intervention.withdraw": "撤回",
  "intervention.moveUp": "上移",
  "intervention.moveDown": "下移",
  "intervention.withdrawTask": "撤回任务",
  "intervention.withdrawTaskHint": "智能体会收到通知并停下，已完成的工作会保留。",
  "intervention.cancelledBy": "已被 {name} 取消",
  "intervention.cancelled": "已取消",
};
