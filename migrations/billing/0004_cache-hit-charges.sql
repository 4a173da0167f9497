-- Up Migration
-- Cache hits charged many to a statement (src/billing/batches.ts): the balance pays for as many
-- of them as it covers, in their order, and each hit paid gets its ledger row.

CREATE OR REPLACE FUNCTION charge_cache_hits(org text, price bigint, run_keys text[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  paid integer;
BEGIN
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
DROP FUNCTION IF EXISTS charge_cache_hits(text, bigint, text[]);
