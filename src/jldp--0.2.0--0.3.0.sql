-- jldp 0.2.0 -> 0.3.0.  Each section below adds what the same section at
-- the end of jldp--0.3.0.sql adds to a fresh install.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.3.0'" to load this file. \quit
