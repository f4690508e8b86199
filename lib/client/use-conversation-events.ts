"use client";

import { useEffect, useReducer, useState } from "react";
import { RuntimeEventSchema, type RuntimeEvent } from "@/lib/contracts/events";
import { applyReconnect, applyRuntimeEvent, initialLiveState, type LiveState } from "./live-state";
import { conversationEventsUrl } from "./live";

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
 * Key the calling component by conversation id: the state is not reset when the id changes.
 */
export function useConversationEvents(conversationId: string): { state: LiveState; connection: ConnectionState } {
  const [state, dispatch] = useReducer(reducer, initialLiveState);
  const [connection, setConnection] = useState<ConnectionState>("connecting");

  useEffect(() => {
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

    const open = () => {
      if (disposed) return;
      source = new EventSource(conversationEventsUrl(conversationId));
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

    open();
    return () => {
      disposed = true;
      clearTimeout(reopenTimer);
      source?.close();
    };
  }, [conversationId]);

  return { state, connection };
}
