-- Random inputs, fixed seed: every call either succeeds with a well-formed
-- result or fails with a specific SQLSTATE (never XX000, never a crash).
SELECT setseed(0.42);

CREATE FUNCTION fuzz_value() RETURNS float8 LANGUAGE sql VOLATILE AS $$
  SELECT (ARRAY['NaN', 'Infinity', '-Infinity', '0', '-0', '1e-320', '1e300', '-1e300',
                '1e-300', '4.9e-324', '1.7976931348623157e308', '1', '-1', '0.5',
                '3.14159', '1e15', '-7'])[1 + floor(random() * 17)::int]::float8
$$;

CREATE FUNCTION fuzz_array() RETURNS float8[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n int := floor(random() * 6)::int;
  lb int := floor(random() * 10 - 5)::int;
  a float8[];
BEGIN
  CASE floor(random() * 8)::int
    WHEN 0 THEN RETURN NULL;
    WHEN 1 THEN RETURN '{}'::float8[];
    WHEN 2 THEN RETURN ARRAY[[fuzz_value(), fuzz_value()], [fuzz_value(), fuzz_value()]];
    WHEN 3 THEN RETURN ARRAY[fuzz_value(), NULL];
    ELSE
      SELECT array_agg(CASE WHEN random() < 0.85 THEN random() * 10 - 5 ELSE fuzz_value() END)
        INTO a FROM generate_series(0, n);
      IF random() < 0.2 THEN
        a := ('[' || lb || ':' || (lb + n) || ']={' || array_to_string(a, ',') || '}')::float8[];
      END IF;
      RETURN a;
  END CASE;
END $$;

CREATE FUNCTION fuzz_int() RETURNS int LANGUAGE sql VOLATILE AS $$
  SELECT (ARRAY[NULL, -1, 0, 1, 2, 3, 7, 24, 25, 10000, 10001, 2147483647, -2147483648])[1 + floor(random() * 13)::int]
$$;

CREATE FUNCTION fuzz_word() RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT (ARRAY[NULL, 'element', 'row', 'exact', 'paper', '', 'ROW', 'element '])[1 + floor(random() * 8)::int]
$$;

-- projection kinds: mostly valid, some malformed densities and words
CREATE FUNCTION fuzz_kind() RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT CASE WHEN random() < 0.8
    THEN (ARRAY['gaussian', 'rademacher', 'achlioptas', 'sparse', 'sparse(0.3)'])[1 + floor(random() * 5)::int]
    ELSE (ARRAY['sparse(1e-300)', 'sparse(2)', 'sparse(', 'sparse(inf)', 'sparse(0.5)x', 'Sparse',
                NULL])[1 + floor(random() * 7)::int] END
$$;

CREATE TABLE fuzz_log (fn text, sqlstate text);

DO $$
DECLARE
  st text;
  r float8[];
  j jsonb;
  v float8;
BEGIN
  FOR i IN 1..1500 LOOP
    BEGIN
      r := jl_private_release(fuzz_array(), fuzz_int(), fuzz_value(), fuzz_word(), fuzz_value(),
                              fuzz_word(), CASE WHEN random() < 0.5 THEN NULL ELSE fuzz_value() END,
                              (ARRAY['pinned', 'pinned2', 'missing', NULL])[1 + floor(random() * 4)::int]);
      st := CASE WHEN array_ndims(r) = 1 AND array_position(r, 'NaN') IS NULL THEN 'ok' ELSE 'malformed' END;
    EXCEPTION WHEN OTHERS THEN
      st := SQLSTATE;
    END;
    INSERT INTO fuzz_log VALUES ('jl_private_release', st);

    BEGIN
      j := jl_release_info(least(fuzz_int(), 300), least(fuzz_int(), 26), fuzz_value(), fuzz_word(), fuzz_value(),
                           fuzz_word(), CASE WHEN random() < 0.5 THEN NULL ELSE fuzz_value() END, 'pinned');
      st := CASE WHEN j ? 'epsilon' THEN 'ok' ELSE 'malformed' END;
    EXCEPTION WHEN OTHERS THEN
      st := SQLSTATE;
    END;
    INSERT INTO fuzz_log VALUES ('jl_release_info', st);

    BEGIN
      v := jl_recover_dist(fuzz_array(), fuzz_array(), fuzz_value());
      st := 'ok';
    EXCEPTION WHEN OTHERS THEN
      st := SQLSTATE;
    END;
    INSERT INTO fuzz_log VALUES ('jl_recover_dist', st);

    BEGIN
      r := jl_project(fuzz_array(), fuzz_int(), 'pinned');
      st := 'ok';
    EXCEPTION WHEN OTHERS THEN
      st := SQLSTATE;
    END;
    INSERT INTO fuzz_log VALUES ('jl_project', st);
  END LOOP;
END $$;

-- the projection kinds, with the other arguments mostly valid
DO $$
DECLARE
  st text;
  r float8[];
  j jsonb;
BEGIN
  FOR i IN 1..300 LOOP
    BEGIN
      r := jl_private_release(CASE WHEN random() < 0.7 THEN ARRAY[random(), random() - 0.5, 2.0] ELSE fuzz_array() END,
                              CASE WHEN random() < 0.7 THEN 6 ELSE fuzz_int() END, 1.0,
                              CASE WHEN random() < 0.5 THEN 'element' ELSE 'row' END, 1.0, 'exact', NULL, 'pinned',
                              fuzz_kind());
      st := CASE WHEN array_ndims(r) = 1 AND array_position(r, 'NaN') IS NULL THEN 'ok' ELSE 'malformed' END;
    EXCEPTION WHEN OTHERS THEN
      st := SQLSTATE;
    END;
    INSERT INTO fuzz_log VALUES ('jl_private_release kind', st);

    BEGIN
      j := jl_release_info(least(fuzz_int(), 300), CASE WHEN random() < 0.7 THEN 6 ELSE least(fuzz_int(), 26) END,
                           1.0, fuzz_word(), 1.0, fuzz_word(), NULL, 'pinned', fuzz_kind());
      st := CASE WHEN j ? 'epsilon' AND j ? 'density' THEN 'ok' ELSE 'malformed' END;
    EXCEPTION WHEN OTHERS THEN
      st := SQLSTATE;
    END;
    INSERT INTO fuzz_log VALUES ('jl_release_info kind', st);

    BEGIN
      r := jl_project(fuzz_array(), CASE WHEN random() < 0.7 THEN 6 ELSE fuzz_int() END, 'pinned', fuzz_kind());
      st := 'ok';
    EXCEPTION WHEN OTHERS THEN
      st := SQLSTATE;
    END;
    INSERT INTO fuzz_log VALUES ('jl_project kind', st);
  END LOOP;
END $$;

-- no internal errors, no malformed results; some calls of each kind succeed
SELECT fn,
       count(*) FILTER (WHERE sqlstate = 'XX000') AS internal_errors,
       count(*) FILTER (WHERE sqlstate = 'malformed') AS malformed,
       count(*) FILTER (WHERE sqlstate = 'ok') > 0 AS some_succeed,
       count(*) FILTER (WHERE sqlstate NOT IN ('ok', 'malformed')) > 0 AS some_fail
  FROM fuzz_log GROUP BY fn ORDER BY fn;
-- the error classes seen are the documented ones
SELECT DISTINCT sqlstate FROM fuzz_log
 WHERE sqlstate NOT IN ('ok', '22004', '2202E', '22003', '22023', '42704', '54000')
 ORDER BY 1;

DROP TABLE fuzz_log;
DROP FUNCTION fuzz_value(), fuzz_array(), fuzz_int(), fuzz_word(), fuzz_kind();
