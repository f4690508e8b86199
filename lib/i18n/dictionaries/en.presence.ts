/** English strings of presence: who else has a conversation open, typing, the index's counts (issue 32; part of the dictionary in ./en.ts). */
export const enPresence = {
  "presence.label": "Also here",
  "presence.drawer": "viewing agent {id}",
  "presence.you": "Only you have this conversation open.",
  "presence.typingOne": "{name} is typing…",
  "presence.typingMany": "{names} are typing…",
  "presence.count": "{n} here",
  "presence.countTitle": "People with this conversation open: {n}",
} as const;
