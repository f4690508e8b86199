/** English strings of the approval cards (part of {@link en} in ./en.ts). */
export const enApprovals = {
  "approvals.wantsCommand": "{name} wants to run a command",
  "approvals.wantsTool": "{name} wants to use {tool}",
  "approvals.folder": "in {folder}",
  "approvals.held.agent_changed_files": "Allow-listed, but asked again: an agent changed the project's files since a person last approved a command, and {detail} runs project code.",
  "approvals.held.git_repository_new": "Allow-listed, but asked again: the project's git repository was made after this conversation started, so it may not be one you had.",
  "approvals.held.git_diff_program": "Allow-listed, but asked again: the repository's git configuration runs a program for diffs ({detail}), which git cannot be kept from running.",
  "approvals.held.git_alias": "Allow-listed, but asked again: git {detail} is an alias of the repository's configuration, which can run any program.",
  "approvals.approve": "Approve",
  "approvals.always": "Always allow",
  "approvals.patternLabel": "Allow from now on in this conversation the commands matching (* stands for anything):",
  "approvals.alwaysConfirm": "Approve and remember",
  "approvals.deny": "Deny",
  "approvals.reasonLabel": "Why not? (the agent reads this)",
  "approvals.denyConfirm": "Deny",
  "approvals.cancel": "Cancel",
  "approvals.error": "The decision was not sent: {error}",
};
