-- Up Migration
-- The API processes that charge, and when each last said it was alive: a charge whose run never
-- started is refunded once its API is gone, not only past its deadline.

CREATE TABLE IF NOT EXISTS billing_processes (
  id text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);

-- The process that made a charge; null for charges made before this column and by the run tools.
ALTER TABLE ledger ADD COLUMN IF NOT EXISTS charged_by text;

-- Down Migration
ALTER TABLE ledger DROP COLUMN IF EXISTS charged_by;
DROP TABLE IF EXISTS billing_processes;
