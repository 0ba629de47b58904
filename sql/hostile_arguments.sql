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

-- option words, cast to the option's enum where used: mostly one of its
-- values (NULL for calibration: the noise's default), else a word that is none
-- (22P02 from the enum's input: another option's word, '', the wrong case, a
-- trailing space, a misspelling, 'element' (0.4's neighbour)) or NULL
CREATE FUNCTION fuzz_word(valid text[], invalid text[]) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT CASE WHEN random() < 0.9 THEN valid[1 + floor(random() * cardinality(valid))::int]
              ELSE invalid[1 + floor(random() * cardinality(invalid))::int] END
$$;

CREATE FUNCTION fuzz_neighbor() RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT fuzz_word('{attribute,row}', '{NULL,element,exact,"",ROW,"attribute "}')
$$;

CREATE FUNCTION fuzz_calibration() RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT fuzz_word('{NULL,exact,analytic,classic,paper}', '{row,"",EXACT,"exact ",element}')
$$;

CREATE FUNCTION fuzz_noise() RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT fuzz_word('{laplace,gaussian}', '{NULL,lapalce,Gaussian,exact}')
$$;

-- projection kinds (a jl_kind word and a density): mostly valid, some
-- malformed densities (refused by jl_sketch) and words (22P02)
CREATE FUNCTION fuzz_kind(OUT kind text, OUT density float8) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  i int;
BEGIN
  IF random() < 0.8 THEN
    i := 1 + floor(random() * 6)::int;
    kind := (ARRAY['gaussian', 'rademacher', 'achlioptas', 'sparse', 'sparse', 'identity'])[i];
    density := (ARRAY[NULL, NULL, NULL, NULL, 0.3, NULL]::float8[])[i];
  ELSE
    i := 1 + floor(random() * 8)::int;
    kind := (ARRAY['sparse', 'sparse', 'sparse(', 'sparse', 'sparse(0.5)x', 'Sparse', 'gaussian', NULL])[i];
    density := (ARRAY[1e-300, 2, NULL, 'Infinity', NULL, NULL, 0.3, NULL]::float8[])[i];
  END IF;
END $$;

CREATE TABLE fuzz_log (fn text, sqlstate text);

DO $$
DECLARE
  st text;
  r float8[];
  j jsonb;
  v float8;
  nw text;
BEGIN
  FOR i IN 1..1500 LOOP
    BEGIN
      nw := fuzz_noise();
      r := jl_private_release(fuzz_array(), fuzz_value(), fuzz_value(), fuzz_neighbor()::jl_neighbor,
                              jl_sketch(k => fuzz_int(), noise => nw::jl_noise,
                                        calibration => fuzz_calibration()::jl_calibration,
                                        delta => CASE WHEN (nw = 'gaussian') = (random() < 0.9) THEN fuzz_value() END),
                              (ARRAY['pinned', 'pinned2', 'missing', NULL])[1 + floor(random() * 4)::int]);
      st := CASE WHEN array_ndims(r) = 1 AND array_position(r, 'NaN') IS NULL THEN 'ok' ELSE 'malformed' END;
    EXCEPTION WHEN OTHERS THEN
      st := SQLSTATE;
    END;
    INSERT INTO fuzz_log VALUES ('jl_private_release', st);

    BEGIN
      nw := fuzz_noise();
      j := jl_release_info(least(fuzz_int(), 300), fuzz_value(), fuzz_value(), fuzz_neighbor()::jl_neighbor,
                           jl_sketch(k => least(fuzz_int(), 26), noise => nw::jl_noise,
                                     calibration => fuzz_calibration()::jl_calibration,
                                     delta => CASE WHEN (nw = 'gaussian') = (random() < 0.9) THEN fuzz_value() END),
                           'pinned');
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
      r := jl_project(fuzz_array(), jl_sketch(k => fuzz_int()), 'pinned');
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
  kw text;
  dens float8;
BEGIN
  FOR i IN 1..300 LOOP
    BEGIN
      SELECT * INTO kw, dens FROM fuzz_kind();
      r := jl_private_release(CASE WHEN random() < 0.7 THEN ARRAY[random(), random() - 0.5, 2.0] ELSE fuzz_array() END,
                              1.0, 1.0, CASE WHEN random() < 0.5 THEN 'attribute' ELSE 'row' END::jl_neighbor,
                              jl_sketch(k => CASE WHEN random() < 0.7 THEN 6 ELSE fuzz_int() END,
                                        kind => kw::jl_kind, calibration => 'exact', density => dens),
                              'pinned');
      st := CASE WHEN array_ndims(r) = 1 AND array_position(r, 'NaN') IS NULL THEN 'ok' ELSE 'malformed' END;
    EXCEPTION WHEN OTHERS THEN
      st := SQLSTATE;
    END;
    INSERT INTO fuzz_log VALUES ('jl_private_release kind', st);

    BEGIN
      SELECT * INTO kw, dens FROM fuzz_kind();
      j := jl_release_info(least(fuzz_int(), 300), 1.0, 1.0, fuzz_neighbor()::jl_neighbor,
                           jl_sketch(k => CASE WHEN random() < 0.7 THEN 6 ELSE least(fuzz_int(), 26) END,
                                     kind => kw::jl_kind, calibration => fuzz_calibration()::jl_calibration,
                                     density => dens),
                           'pinned');
      st := CASE WHEN j ? 'epsilon' AND j ? 'density' THEN 'ok' ELSE 'malformed' END;
    EXCEPTION WHEN OTHERS THEN
      st := SQLSTATE;
    END;
    INSERT INTO fuzz_log VALUES ('jl_release_info kind', st);

    BEGIN
      SELECT * INTO kw, dens FROM fuzz_kind();
      r := jl_project(fuzz_array(), jl_sketch(k => CASE WHEN random() < 0.7 THEN 6 ELSE fuzz_int() END,
                                              kind => kw::jl_kind, density => dens), 'pinned');
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
-- the error classes seen are the documented ones (22P02: a word that is no
-- value of the option's enum)
SELECT DISTINCT sqlstate FROM fuzz_log
 WHERE sqlstate NOT IN ('ok', '22004', '2202E', '22003', '22023', '22P02', '42704', '54000')
 ORDER BY 1;

DROP TABLE fuzz_log;
DROP FUNCTION fuzz_value(), fuzz_array(), fuzz_int(), fuzz_word(text[], text[]), fuzz_neighbor(), fuzz_calibration(), fuzz_noise(), fuzz_kind();
