-- Up Migration
-- Organizations, their API keys, balances and the ledger of every grant, charge and refund.
-- IF NOT EXISTS: the embedded store serves every client one session, where PostgreSQL's
-- advisory lock cannot keep two first starts apart.

CREATE TABLE IF NOT EXISTS organizations (
  name text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 100),
  -- Never below zero: a charge that does not fit is refused, not overdrawn.
  balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  requests_per_minute integer CHECK (requests_per_minute > 0),
  concurrent_streams integer CHECK (concurrent_streams > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS api_keys (
  id text PRIMARY KEY,
  organization text NOT NULL REFERENCES organizations (name),
  -- SHA-256 of the key: keys are 192 random bits, so a fast hash is enough and the lookup stays an index probe.
  key_hash bytea NOT NULL UNIQUE,
  -- The key's first characters, to tell keys apart in a listing.
  hint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX IF NOT EXISTS api_keys_organization ON api_keys (organization);

CREATE TABLE IF NOT EXISTS ledger (
  id bigserial PRIMARY KEY,
  organization text NOT NULL REFERENCES organizations (name),
  kind text NOT NULL CHECK (kind IN ('grant', 'charge', 'refund')),
  -- Signed: a charge is negative, a grant or refund positive.
  amount bigint NOT NULL,
  operation text,
  -- The run a charge or refund is for (its workflow id): at most one of each per run.
  run_key text,
  note text,
  -- A charge's run is settled once it has ended and been refunded or not.
  settled_at timestamptz,
  -- Past it, a charge whose run never started is refunded.
  expires_at timestamptz,
  -- When a sweep last found the charge's run still going: the sweep looks at the longest unseen first.
  checked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS ledger_once_per_run ON ledger (run_key, kind) WHERE run_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS ledger_unsettled ON ledger (coalesce(checked_at, created_at)) WHERE kind = 'charge' AND settled_at IS NULL;
CREATE INDEX IF NOT EXISTS ledger_organization ON ledger (organization, id);

-- Down Migration
DROP TABLE IF EXISTS ledger;
DROP TABLE IF EXISTS api_keys;
DROP TABLE IF EXISTS organizations;
