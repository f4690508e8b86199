/**
 * The browser's side of presence (issue 32): the acknowledgments a page posts for its stream's
 * viewer (every heartbeat, and at once when its drawer or typing changes), and the index's
 * counts. See docs/people.md#presence.
 */
import { queryOptions } from "@tanstack/react-query";
import { PresenceBeatBodySchema, PresenceBeatResponseSchema, PresenceCountsSchema, type PresentPerson, type TypingTarget } from "@/lib/contracts/presence";
import { apiFetch, bodyOf } from "./api";

/** While keystrokes go on, a typing beat is sent at most this often (the server's window is 5 s). */
const TYPING_BEAT_MS = 2_000;
/** Past this long without a keystroke the page no longer says it is typing. */
const TYPING_QUIET_MS = 4_000;

/** What the stream's presence frames told the page. */
export interface PresenceView {
  /** This tab's viewer id (from `hello`), null before it. */
  viewer: string | null;
  /** This tab's person (so the page leaves itself out). */
  me: string | null;
  /** Everyone present, this person included. */
  people: PresentPerson[];
}

/** Before the stream said anything. */
export const initialPresence: PresenceView = { viewer: null, me: null, people: [] };

/**
 * One tab's acknowledgments. The function given to {@link whenUnknown} is called when the server
 * no longer knows the viewer (its entry expired, say after the network came back, or Redis was
 * flushed): the page reopens its stream, which registers it again.
 */
export class PresenceBeats {
  #viewer: string | null = null;
  #drawer: number | null = null;
  #typing: { target: TypingTarget; at: number; sentAt: number } | null = null;
  readonly #conversationId: string;
  #onUnknown: () => void = () => undefined;

  constructor(conversationId: string) {
    this.#conversationId = conversationId;
  }

  /** What to do when the server no longer knows the viewer (reopen the stream). */
  whenUnknown(reopen: () => void) {
    this.#onUnknown = reopen;
  }

  /** A new stream named its viewer: acknowledged at once when a drawer is open, so others see it. */
  viewer(id: string) {
    this.#viewer = id;
    if (this.#drawer !== null) this.#send();
  }

  /** The stream's heartbeat. */
  heartbeat() {
    this.#send();
  }

  /** The drawer open now (a sub-agent's number, or null). */
  drawer(agentId: number | null) {
    if (agentId === this.#drawer) return;
    this.#drawer = agentId;
    this.#send();
  }

  /** A keystroke in the composer to `target`. */
  typed(target: TypingTarget) {
    const now = Date.now();
    const again = !this.#typing || this.#typing.target !== target || now - this.#typing.sentAt >= TYPING_BEAT_MS;
    this.#typing = { target, at: now, sentAt: again ? now : this.#typing!.sentAt };
    if (again) this.#send();
  }

  /** The message was sent: typing stops at once. */
  sent() {
    if (!this.#typing) return;
    this.#typing = null;
    this.#send();
  }

  #send() {
    const viewer = this.#viewer;
    if (!viewer) return;
    const typing = this.#typing && Date.now() - this.#typing.at < TYPING_QUIET_MS ? this.#typing.target : null;
    apiFetch(`/api/conversations/${encodeURIComponent(this.#conversationId)}/presence`, PresenceBeatResponseSchema, {
      method: "POST",
      body: bodyOf(PresenceBeatBodySchema, { viewer, drawer: this.#drawer, typing }),
    }).then(
      (answer) => {
        // Only the current stream's viewer: an answer about one replaced meanwhile is old news.
        if (!answer.known && this.#viewer === viewer) {
          this.#viewer = null;
          this.#onUnknown();
        }
      },
      // Offline or refused: the next heartbeat tries again; the server drops the viewer meanwhile.
      () => undefined,
    );
  }
}

/** The people other than `me`, for the avatars and "typing…". */
export function othersOf(view: PresenceView): PresentPerson[] {
  return view.people.filter((p) => p.person.id !== view.me);
}

/** The index's counts, polled: conversation id → people with it open. */
export function presenceCountsQuery() {
  return queryOptions({
    queryKey: ["presence", "counts"] as const,
    queryFn: ({ signal }) => apiFetch("/api/presence", PresenceCountsSchema, { signal }),
    refetchInterval: 3_000,
    staleTime: 2_000,
  });
}
