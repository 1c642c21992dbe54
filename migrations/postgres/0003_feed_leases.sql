-- Feed leases, PostgreSQL dialect. migrations/sqlite/0003_feed_leases.sql is the same change in
-- SQLite's dialect: change both together (tests/store_schema.rs compares them).
--
-- Several `gleaner run` replicas may share one database. A replica polls a feed only while it
-- holds the feed's lease: `lease_owner` names the replica, `lease_until` is when the lease
-- lapses unless renewed. A replica that dies stops renewing, and its feeds move on to the
-- others once `lease_until` has passed. `host` is the feed URL's host: a feed is not leased
-- while another process holds a feed of the same host, so one host's feeds are polled from
-- one process at a time and its politeness limits hold across processes.

ALTER TABLE feeds ADD COLUMN lease_owner TEXT;
ALTER TABLE feeds ADD COLUMN lease_until TIMESTAMPTZ;
ALTER TABLE feeds ADD COLUMN host TEXT;
CREATE INDEX feeds_lease_owner_idx ON feeds (lease_owner) WHERE lease_owner IS NOT NULL;
CREATE INDEX feeds_host_idx ON feeds (host);
