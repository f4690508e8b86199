import "server-only";
/**
 * Migration 1: the engine's storage (docs/postgresql.md describes every table). A conversation's
 * seed files become rows: metadata.json and the leader's messages.json head in `conversations`,
 * each sub-agent's metadata.json and messages.json head in `agents`, one row per message in
 * `messages`, the JSON Lines files (timeline, context reports, action journal) as numbered lines,
 * the run leases with their epochs, and the fence every write transaction calls.
 *
 * The files' JSON is kept as `json`, not `jsonb`: `json` keeps the text as written (key order,
 * numbers, `\u0000` escapes, which `jsonb` refuses), so what is read back is what was saved and a
 * data folder moved in and out is unchanged. Lines are `text`: a line is kept byte for byte.
 */
import type { Migration } from "./types";

const SQL = String.raw`
CREATE TABLE conversations (
  id text PRIMARY KEY,
  -- metadata.json (token totals included, as on disk)
  meta json NOT NULL,
  -- the Team Leader's messages.json without its messages (id, title, times, metadata, token_statistics)
  leader_head json NOT NULL,
  status text GENERATED ALWAYS AS (meta ->> 'status') STORED
);
CREATE INDEX conversations_by_status ON conversations (status, id);

CREATE TABLE agents (
  conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  agent_id integer NOT NULL CHECK (agent_id > 0),
  -- agents/<agent_id>/metadata.json
  meta json NOT NULL,
  -- agents/<agent_id>/messages.json without its messages
  messages_head json NOT NULL,
  PRIMARY KEY (conversation_id, agent_id)
);

-- One row per message of a messages.json: agent 0 is the Team Leader. A change writes only the
-- rows whose message changed, so its cost does not grow with the transcript.
CREATE TABLE messages (
  conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  agent_id integer NOT NULL CHECK (agent_id >= 0),
  idx integer NOT NULL CHECK (idx >= 0),
  message json NOT NULL,
  PRIMARY KEY (conversation_id, agent_id, idx)
);

-- The JSON Lines files beside the seed files, a row per line, numbered from 1 per file.
CREATE TABLE conversation_lines (
  conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  file text NOT NULL CHECK (file IN ('timeline.jsonl', 'context.jsonl', 'actions.jsonl')),
  seq bigint NOT NULL CHECK (seq > 0),
  line text NOT NULL,
  PRIMARY KEY (conversation_id, file, seq)
);

-- Who runs a conversation: one owner (an instance) at a time, until expires_at; every takeover
-- moves the epoch on, and a write transaction carries the epoch it holds (astrion_fence).
CREATE TABLE leases (
  conversation_id text PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
  owner text NOT NULL,
  epoch bigint NOT NULL CHECK (epoch > 0),
  expires_at timestamptz NOT NULL
);

-- state.json's agent_id_counter: every sub-agent created, in every conversation (an agent's own
-- id is numbered within its conversation). Like the file, it may run ahead of the agents it counted.
CREATE SEQUENCE agent_instances;

-- Called first by every write transaction with the leases it holds: locks their rows (FOR SHARE,
-- so a takeover's UPDATE waits until the transaction ends) and aborts the transaction when one is
-- no longer held with that epoch by that owner, naming them in DETAIL (a JSON array).
CREATE FUNCTION astrion_fence(p_owner text, p_ids text[], p_epochs bigint[]) RETURNS void
LANGUAGE plpgsql AS $fence$
DECLARE
  stale text;
BEGIN
  PERFORM 1 FROM leases WHERE conversation_id = ANY (p_ids) ORDER BY conversation_id FOR SHARE;
  SELECT json_agg(json_build_object('id', t.id, 'held', t.epoch, 'owner', l.owner, 'epoch', l.epoch))::text
    INTO stale
    FROM unnest(p_ids, p_epochs) AS t (id, epoch)
    LEFT JOIN leases l ON l.conversation_id = t.id
   WHERE l.conversation_id IS NULL OR l.owner <> p_owner OR l.epoch <> t.epoch;
  IF stale IS NOT NULL THEN
    RAISE EXCEPTION 'stale lease: the write is refused' USING ERRCODE = 'AS001', DETAIL = stale;
  END IF;
END
$fence$;
`;

export const ENGINE_STORAGE: Migration = { version: 1, name: "engine_storage", sql: SQL };
