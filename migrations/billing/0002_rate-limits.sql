-- Up Migration
-- Rate limits shared by every API replica when there is no Redis (REDIS_URL).

-- Requests counted per window, in the layout of rate-limiter-flexible's PostgreSQL store.
CREATE TABLE IF NOT EXISTS rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  -- Milliseconds since the epoch.
  expire bigint
);

-- Research and automate runs in flight: one leased row each, renewed while its run goes on, so a
-- slot whose API process died frees itself when the lease runs out.
CREATE TABLE IF NOT EXISTS stream_slots (
  id text PRIMARY KEY,
  organization text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS stream_slots_organization ON stream_slots (organization);

-- A function, so that each statement sees what the taker before it committed: one statement would
-- count from a snapshot taken before it waited for the lock.
CREATE OR REPLACE FUNCTION take_stream_slot(org text, slot text, slot_limit integer, lease_ms integer)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('stream_slots'), hashtext(org));
  DELETE FROM stream_slots WHERE organization = org AND expires_at < clock_timestamp();
  IF (SELECT count(*) FROM stream_slots WHERE organization = org) >= slot_limit THEN
    RETURN false;
  END IF;
  INSERT INTO stream_slots (id, organization, expires_at)
  VALUES (slot, org, clock_timestamp() + lease_ms * interval '1 millisecond');
  RETURN true;
END
$$;

-- Down Migration
DROP FUNCTION IF EXISTS take_stream_slot(text, text, integer, integer);
DROP TABLE IF EXISTS stream_slots;
DROP TABLE IF EXISTS rate_limits;
