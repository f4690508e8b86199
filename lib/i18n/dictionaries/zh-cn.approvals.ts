/** 审批卡片的中文文字（./zh-cn.ts 中 zhCN 的一部分）。 */
import type { enApprovals } from "./en.approvals";

export const zhCNApprovals: Record<keyof typeof enApprovals, string> = {
  "approvals.wantsCommand": "{name} 想要运行一条命令",
  "approvals.wantsTool": "{name} 想要使用 {tool}",
  "approvals.folder": "位置：{folder}",
  "approvals.held.agent_changed_files": "此命令在允许列表中，但需再次确认：自上次有人批准命令以来，智能体修改过项目文件，而 {detail} 会运行项目代码。",
  "approvals.held.git_repository_new": "此命令在允许列表中，但需再次确认：项目的 git 仓库是在本会话开始后创建的，可能不是你原有的仓库。",
  "approvals.held.git_diff_program": "此命令在允许列表中，但需再次确认：仓库的 git 配置会为差异比较运行一个程序（{detail}），无法阻止 git 运行它。",
  "approvals.held.git_alias": "此命令在允许列表中，但需再次确认：git {detail} 是仓库配置中的别名，可以运行任何程序。",
  "approvals.approve": "批准",
  "approvals.always": "始终允许",
  "approvals.patternLabel": "在本对话中今后允许匹配以下模式的命令（* 表示任意内容）：",
  "approvals.alwaysConfirm": "批准并记住",
  "approvals.deny": "拒绝",
  "approvals.reasonLabel": "拒绝原因（智能体会看到）",
  "approvals.denyConfirm": "拒绝",
  "approvals.cancel": "取消",
  "approvals.error": "决定未能发送：{error}",
};
