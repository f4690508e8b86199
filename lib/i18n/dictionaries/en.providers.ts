/** English strings of provider profiles: server-flag notices and how a profile was found (part of {@link en} in ./en.ts). */
export const enProviders = {
  "notice.msg.leaderServerFlag": "The Team Leader's model ({model}) is served by {server}, which refused the request because it was started without a flag: restart {server} with {flag}, then send a message to continue.",
  "notice.msg.agentServerFlag": "Agent {agent}'s model ({model}) is served by {server}, which refused the request because it was started without a flag: restart {server} with {flag}, then send a message to continue.",
  "models.provider.named": "provider: {profile} (named in models.json)",
  "models.provider.base_url": "provider: {profile} (guessed from the base URL: {detail})",
  "models.provider.server": "provider: {profile} (guessed from the server's /v1/models: {detail})",
  "models.provider.default": "provider: {profile} (nothing to guess from: plain OpenAI-compatible behaviour)",
};
