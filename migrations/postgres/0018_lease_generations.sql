-- Lease generations, PostgreSQL dialect. migrations/sqlite/0018_lease_generations.sql is the
-- same change in SQLite's dialect: change both together (tests/store_schema.rs compares
-- them).
--
-- `feeds.lease_generation` counts the leases taken on the feed: each take adds one. A
-- release names the owner and the generation it took, so a release that comes late (it
-- failed and was retried after the lease lapsed) never frees a newer lease of the same
-- process, which would let the feed be polled twice at once.

ALTER TABLE feeds ADD COLUMN lease_generation BIGINT NOT NULL DEFAULT 0;
