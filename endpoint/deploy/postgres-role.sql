-- The endpoint's own role and database on PostgreSQL (run as a superuser: psql -f postgres-role.sql).
-- The endpoint creates and upgrades its tables itself (versioned migrations at start), so its role
-- owns its database and needs no other right: no superuser, no CREATEDB, no CREATEROLE.
CREATE ROLE tracking LOGIN PASSWORD 'replace-with-a-long-random-password';
CREATE DATABASE tracking OWNER tracking;
-- PostgreSQL 15: the public schema of a new database is owned by pg_database_owner, which is tracking here.
REVOKE ALL ON DATABASE tracking FROM PUBLIC;
