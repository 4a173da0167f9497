-- Up Migration
-- Request counts write no WAL, so counting a request waits for no disk: after a crash of the
-- database its unlogged tables start empty, which gives every organization a fresh minute, once.
-- Stream slots stay logged: losing them would let runs past their limit for as long as they last.
ALTER TABLE rate_limits SET UNLOGGED;

-- Down Migration
ALTER TABLE rate_limits SET LOGGED;
