-- A backend that loaded jldp has one thread: the threaded OpenBLAS build
-- starts a pool when the library loads, whose idle thread spins on a CPU
-- for about a tenth of a second; _PG_init stops it.  (Linux:
-- /proc/self/status; the pool's thread made it 2 on a machine of 2 CPUs.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS jldp;
RESET client_min_messages;
SELECT jl_key_import('threads', '\x404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f');
SELECT array_length(jl_project(ARRAY(SELECT i::float8 FROM generate_series(1, 300) i),
                               jl_sketch(k => 20), key => 'threads'), 1) AS k;
SELECT substring(pg_read_file('/proc/self/status') FROM 'Threads:\s+(\d+)') AS threads;
-- parallel workers load the library too: a parallel query still works
CREATE TABLE thr AS
  SELECT i, ARRAY[i, i + 1, i + 2]::float8[] AS x FROM generate_series(1, 2000) i;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT count(*), sum(array_length(jl_project(x, jl_sketch(k => 2), key => 'threads'), 1)) AS elements
  FROM thr;
RESET ALL;
DROP TABLE thr;
SELECT jl_key_drop('threads');
