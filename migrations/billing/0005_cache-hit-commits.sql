-- Up Migration
-- Cache hits' charges commit without waiting for the disk: a crash of the database loses at most
-- the last fraction of a second of them (wal_writer_delay, three times over at worst), each one
-- credit or so, in the callers' favour, and never a charge of a run, which keeps waiting.

CREATE OR REPLACE FUNCTION charge_cache_hits(org text, price bigint, run_keys text[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  paid integer;
BEGIN
  -- For this transaction only, which the function's statement is.
  PERFORM set_config('synchronous_commit', 'off', true);
  -- The row lock waits for any charge under way, and the balance read is the one that charge left.
  SELECT CASE WHEN price = 0 THEN cardinality(run_keys) ELSE least(cardinality(run_keys), balance / price) END
    INTO paid FROM organizations WHERE name = org FOR UPDATE;
  IF coalesce(paid, 0) = 0 THEN
    RETURN 0;
  END IF;
  UPDATE organizations SET balance = balance - paid * price WHERE name = org;
  INSERT INTO ledger (organization, kind, amount, operation, run_key, expires_at, settled_at)
  SELECT org, 'charge', -price, 'cache-hit', run_key, now(), now() FROM unnest(run_keys[1:paid]) AS run_key;
  RETURN paid;
END
$$;

-- Down Migration
-- 0004's function, whose commits wait for the disk.
CREATE OR REPLACE FUNCTION charge_cache_hits(org text, price bigint, run_keys text[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  paid integer;
BEGIN
  SELECT CASE WHEN price = 0 THEN cardinality(run_keys) ELSE least(cardinality(run_keys), balance / price) END
    INTO paid FROM organizations WHERE name = org FOR UPDATE;
  IF coalesce(paid, 0) = 0 THEN
    RETURN 0;
  END IF;
  UPDATE organizations SET balance = balance - paid * price WHERE name = org;
  INSERT INTO ledger (organization, kind, amount, operation, run_key, expires_at, settled_at)
  SELECT org, 'charge', -price, 'cache-hit', run_key, now(), now() FROM unnest(run_keys[1:paid]) AS run_key;
  RETURN paid;
END
$$;
