"use client";

import { useEffect, useReducer, useState } from "react";
import { RuntimeEventSchema, type RuntimeEvent } from "@/lib/contracts/events";
import { PresenceFrameSchema } from "@/lib/contracts/presence";
import { applyReconnect, applyRuntimeEvent, initialLiveState, type LiveState } from "./live-state";
import { conversationEventsUrl } from "./live";
import { initialPresence, PresenceBeats, type PresenceView } from "./presence";

/** Where the SSE connection stands. */
export type ConnectionState = "connecting" | "open" | "reconnecting";

const EVENT_TYPES: ReadonlyArray<RuntimeEvent["type"]> = [
  "snapshot",
  "phase",
  "leader_busy",
  "delta",
  "message",
  "agent",
  "question",
  "question_answered",
  "usage",
  "timeline",
  "notice",
];


/** A closed stream (the server refused it) is reopened after this long. */
const REOPEN_DELAY_MS = 3000;

type Action = { kind: "event"; event: RuntimeEvent } | { kind: "reconnected" };

function reducer(state: LiveState, action: Action): LiveState {
  return action.kind === "reconnected" ? applyReconnect(state) : applyRuntimeEvent(state, action.event);
}

/** Reads one SSE message as a runtime event; the event name stands in for a missing `type`. */
function parseEvent(name: string, data: string): RuntimeEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  if (json && typeof json === "object" && !("type" in json) && name !== "message") json = { type: name, ...json };
  const parsed = RuntimeEventSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/**
 * Follows `GET /api/conversations/[id]/events`. EventSource reconnects by itself with
 * Last-Event-ID; the server answers with the events missed (never the live text streamed
 * meanwhile, so the live text held is dropped at every reconnect) or, when it no longer has them,
 * a snapshot, which replaces the state.
 * If the server closes the stream for good (an error answer), it is reopened after a pause.
 * The same stream carries presence (`event: presence`): who has the conversation open, and a
 * heartbeat this page acknowledges through `beats`, which also says what drawer it has open
 * and to whom it types (lib/client/presence.ts).
 * `enabled` false (the conversation is not found) opens nothing.
 * Key the calling component by conversation id: the state is not reset when the id changes.
 */
export function useConversationEvents(conversationId: string, enabled = true): { state: LiveState; connection: ConnectionState; presence: PresenceView; beats: PresenceBeats } {
  const [state, dispatch] = useReducer(reducer, initialLiveState);
  const [connection, setConnection] = useState<ConnectionState>("connecting");
  const [presence, setPresence] = useState<PresenceView>(initialPresence);
  const [beats] = useState(() => new PresenceBeats(conversationId));

  useEffect(() => {
    if (!enabled) return;
    let source: EventSource | null = null;
    let reopenTimer: ReturnType<typeof setTimeout> | undefined;
    let disposed = false;
    // One SSE message may be delivered to both the named listener and `message`; parse it once.
    let lastSeen: MessageEvent | null = null;
    let opened = false;

    const onEvent = (e: Event) => {
      const message = e as MessageEvent<string>;
      if (message === lastSeen) return;
      lastSeen = message;
      const event = parseEvent(message.type, message.data);
      if (event) dispatch({ kind: "event", event });
    };

    const onPresence = (e: Event) => {
      let json: unknown;
      try {
        json = JSON.parse((e as MessageEvent<string>).data);
      } catch {
        return;
      }
      const frame = PresenceFrameSchema.safeParse(json);
      if (!frame.success) return;
      const data = frame.data;
      if (data.type === "hello") {
        setPresence((p) => ({ ...p, viewer: data.viewer, me: data.person.id }));
        beats.viewer(data.viewer);
      } else if (data.type === "people") setPresence((p) => ({ ...p, people: data.people }));
      else beats.heartbeat();
    };

    const open = () => {
      if (disposed) return;
      source = new EventSource(conversationEventsUrl(conversationId));
      source.addEventListener("presence", onPresence);
      source.onopen = () => {
        if (opened) dispatch({ kind: "reconnected" });
        opened = true;
        setConnection("open");
      };
      source.onerror = () => {
        if (!source || disposed) return;
        if (source.readyState === EventSource.CLOSED) {
          source.close();
          setConnection("reconnecting");
          reopenTimer = setTimeout(open, REOPEN_DELAY_MS);
        } else {
          setConnection("reconnecting");
        }
      };
      source.addEventListener("message", onEvent);
      for (const type of EVENT_TYPES) source.addEventListener(type, onEvent);
    };

    // The server forgot this tab's viewer (it expired while the network was away): a new stream
    // registers it again (and starts from a fresh snapshot).
    beats.whenUnknown(() => {
      if (disposed || !source) return;
      source.close();
      clearTimeout(reopenTimer);
      open();
    });
    // A closed tab's stream is closed by the page itself: a browser may otherwise keep the
    // connection until it notices, and the server would see the person leave only at the timeout.
    const onPageHide = () => source?.close();
    window.addEventListener("pagehide", onPageHide);
    open();
    return () => {
      disposed = true;
      window.removeEventListener("pagehide", onPageHide);
      beats.whenUnknown(() => undefined);
      clearTimeout(reopenTimer);
      source?.close();
    };
  }, [conversationId, beats, enabled]);

  return { state, connection, presence, beats };
}
