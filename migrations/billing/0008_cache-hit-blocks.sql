-- Up Migration
-- Blocks of cache hits. An API process through which an organization sends hits fast pays for a
-- block of them and counts their requests ahead, in one statement, answers each hit from the block
-- without a round trip, and gives back what it did not use (src/billing/hitBlocks.ts). A block is a
-- charge under a key of its own: its release settles it with a refund of the unused hits and takes
-- their requests off the window's count; the sweep settles the block of a process that stopped
-- with a refund of all of it (the hits it answered are then free: in the caller's favour, as a
-- hit charge lost with an asynchronous commit is, see 0005).
-- A block takes at most an eighth of what the balance covers and of what is left of the window's
-- limit, and is not made smaller than `fewest` hits, so a balance or a limit nearly spent is
-- charged and counted hit by hit, exactly, as before. Locks are taken in one order: a block's
-- ledger row, the count's row, the balance's (0007's function takes the last two so too).

CREATE OR REPLACE FUNCTION reserve_cache_hits(
  org text, price bigint, wanted integer, fewest integer, block_key text, charged_by text, expires_at timestamptz,
  rate_key text, rate_limit integer, window_ms bigint, now_ms bigint,
  OUT granted integer, OUT counted integer, OUT resets_at bigint
) LANGUAGE plpgsql AS $$
DECLARE
  affordable integer;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  granted := wanted;
  IF rate_key IS NOT NULL THEN
    INSERT INTO rate_limits AS counts (key, points, expire) VALUES (rate_key, wanted, now_ms + window_ms)
    ON CONFLICT (key) DO UPDATE SET
      points = CASE WHEN counts.expire <= now_ms THEN wanted ELSE counts.points + wanted END,
      expire = CASE WHEN counts.expire <= now_ms THEN now_ms + window_ms ELSE counts.expire END
    RETURNING counts.points, counts.expire INTO counted, resets_at;
    granted := greatest(0, least(wanted, (rate_limit - (counted - wanted)) / 8));
  END IF;
  SELECT CASE WHEN price = 0 THEN granted ELSE least(granted, balance / price / 8) END
    INTO affordable FROM organizations WHERE name = org FOR UPDATE;
  granted := coalesce(affordable, 0);
  IF granted < fewest THEN
    granted := 0;
  END IF;
  IF rate_key IS NOT NULL AND granted < wanted THEN
    UPDATE rate_limits SET points = points - (wanted - granted) WHERE key = rate_key;
    counted := counted - (wanted - granted);
  END IF;
  IF granted = 0 THEN
    RETURN;
  END IF;
  UPDATE organizations SET balance = balance - granted * price WHERE name = org;
  INSERT INTO ledger (organization, kind, amount, operation, run_key, note, expires_at, charged_by)
  VALUES (org, 'charge', -granted * price, 'cache-hit', block_key, format('a block of %s cache hits', granted),
          expires_at, charged_by);
END
$$;

CREATE OR REPLACE FUNCTION release_cache_hits(
  block_key text, used_credits bigint, unused_requests integer, rate_key text, window_ends bigint,
  OUT refunded bigint
) LANGUAGE plpgsql AS $$
DECLARE
  org text;
  charged bigint;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  refunded := 0;
  UPDATE ledger SET settled_at = now() WHERE run_key = block_key AND kind = 'charge' AND settled_at IS NULL
    RETURNING organization, -amount INTO org, charged;
  IF org IS NULL THEN
    RETURN;
  END IF;
  -- Only while the window the requests were counted in lasts: a later one never counted them.
  IF rate_key IS NOT NULL AND unused_requests > 0 THEN
    UPDATE rate_limits SET points = greatest(0, points - unused_requests) WHERE key = rate_key AND expire = window_ends;
  END IF;
  refunded := greatest(0, charged - used_credits);
  IF refunded > 0 THEN
    UPDATE organizations SET balance = balance + refunded WHERE name = org;
    INSERT INTO ledger (organization, kind, amount, operation, run_key, note, settled_at)
    VALUES (org, 'refund', refunded, 'cache-hit', block_key, 'the unused hits of a block', now());
  END IF;
END
$$;

-- Down Migration
DROP FUNCTION IF EXISTS release_cache_hits(text, bigint, integer, text, bigint);
DROP FUNCTION IF EXISTS reserve_cache_hits(text, bigint, integer, integer, text, text, timestamptz, text, integer, bigint, bigint);
