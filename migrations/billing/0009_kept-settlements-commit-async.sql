-- Up Migration
-- A run that completed keeps its charge: settling it only marks the charge so the sweep leaves it
-- alone. Such a settlement commits without waiting for the disk: a crash of the database that
-- loses it leaves the charge unsettled, and the sweep settles it again from the run's state in
-- Temporal, with the same result. Nothing of a balance rides on it.

CREATE OR REPLACE FUNCTION settle_kept(run_keys text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- For this transaction only, which the function's statement is.
  PERFORM set_config('synchronous_commit', 'off', true);
  UPDATE ledger SET settled_at = now() WHERE run_key = ANY(run_keys) AND kind = 'charge' AND settled_at IS NULL;
END
$$;

-- Down Migration
DROP FUNCTION IF EXISTS settle_kept(text[]);
