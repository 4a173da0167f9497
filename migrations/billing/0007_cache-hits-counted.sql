-- Up Migration
-- A cache hit's request is counted and its charge made by one statement, not two: on the embedded
-- store, which runs one statement at a time, each costs most of what a hit adds. The count is
-- rate-limiter-flexible's own upsert on its row (src/limits/requestCounter.ts counts every other
-- request there), so both ways of counting share the organization's window. Hits past the limit
-- are counted and not charged, as they are when counted alone; each hit within it is charged as
-- charge_cache_hits charges it.

CREATE OR REPLACE FUNCTION count_and_charge_cache_hits(
  rate_key text, rate_limit integer, window_ms bigint, now_ms bigint,
  org text, price bigint, run_keys text[],
  OUT counted integer, OUT resets_at bigint, OUT paid integer
) LANGUAGE plpgsql AS $$
DECLARE
  hits integer := cardinality(run_keys);
  within integer;
BEGIN
  INSERT INTO rate_limits AS counts (key, points, expire) VALUES (rate_key, hits, now_ms + window_ms)
  ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN counts.expire <= now_ms THEN hits ELSE counts.points + hits END,
    expire = CASE WHEN counts.expire <= now_ms THEN now_ms + window_ms ELSE counts.expire END
  RETURNING counts.points, counts.expire INTO counted, resets_at;
  within := greatest(0, least(hits, rate_limit - (counted - hits)));
  paid := 0;
  IF within > 0 THEN
    -- Turns synchronous_commit off for this transaction: see 0005.
    paid := charge_cache_hits(org, price, run_keys[1:within]);
  END IF;
END
$$;

-- Down Migration
DROP FUNCTION IF EXISTS count_and_charge_cache_hits(text, integer, bigint, bigint, text, bigint, text[]);
