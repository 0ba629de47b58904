#!/usr/bin/env python3
"""Every routine of the extension called with hostile arguments.

Usage: sql_fuzz.py SECONDS [SEED]  (the PG* variables name a superuser
connection to a database holding test/fuzz/sql/fixtures.sql)

For each function, aggregate and procedure of jldp (but the aggregates'
support functions, which take internal, and the trigger functions) a
plausible call is built from its argument names and types; then each
argument in turn takes each hostile value of its type (NULL, '{}', NULL
elements, NaN, +-Infinity, -0, 1e308, 1e-320, 5e-324, 2-D and 3-D arrays,
lower bounds other than 1, 100,000 elements, huge, zero and negative
integers, 100 kB text, unknown option words, relations that do not exist,
views, partitions, catalogs), in a shuffled order; when those are done,
random combinations follow until SECONDS have passed.  Each call runs in one
psql session under statement_timeout, followed by a count of the ledger's
charges.  The run fails when
  - the server restarted (a crash),
  - a call answered XX000 (an internal error),
  - a call ran longer than the timeout by more than a margin (it ignored
    the cancel), or
  - a call failed and the ledger gained a charge (a charge burnt), unless
    the refusal came from the rows themselves, found only while reading
    them after the charge, and jl_ledger marks that charge released =
    false (listed in the output).
It prints how many calls it made, the SQLSTATEs they answered, and every
failure with the call that caused it.
"""
import os
import queue
import random
import re
import subprocess
import sys
import threading
import time

TIMEOUT_S = 3.0
MARGIN_S = 2.0          # a cancel must take effect within this
HANG_S = TIMEOUT_S + MARGIN_S

HOSTILE = {
    "double precision": ["NULL", "'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "1e308",
                         "1e-320", "5e-324", "0", "-1", "1e15", "-1e308"],
    "integer": ["NULL", "0", "-1", "2147483647", "-2147483648", "100000", "1"],
    "bigint": ["NULL", "0", "-1", "9223372036854775807", "-9223372036854775808", "100000"],
    "double precision[]": ["NULL", "'{}'", "'{NULL}'", "'{1,NULL,3,4}'", "'{NaN,1,2,3}'",
                           "'{Infinity,1,2,3}'", "'{-0,0,0,0}'", "'{1e308,-1e308,1e308,1}'",
                           "'{1e-320,5e-324,0,0}'", "'{{1,2},{3,4}}'", "'{{{1,2}},{{3,4}}}'",
                           "'[0:3]={1,2,3,4}'", "'[-5:-2]={1,2,3,4}'",
                           "array_fill(1::float8, ARRAY[100000])",
                           "array_fill(0.5::float8, ARRAY[300,300])", "'{1}'"],
    "integer[]": ["NULL", "'{}'", "'{NULL}'", "'{0}'", "'{-1}'", "'{2147483647}'", "'{1,1}'",
                  "'{{1,2},{3,4}}'", "'[5:6]={1,2}'", "array_fill(1, ARRAY[100000])",
                  "ARRAY(SELECT generate_series(1, 100000))"],
    "text": ["NULL", "''", "repeat('x', 100000)", "'bogus'", "'element'", "'row'", "'gaussian'",
             "'laplace'", "'auto'", "'identity'", "'sparse(0)'", "'sparse(1e308)'", "'pinned'",
             "'fz'", "'id'", "'x'", "'nosuch'", "'pg_catalog.pg_class'", "E'a\\\\b'",
             "'\"quoted\".\"name\"'", "'fz_rel'", "'exact'", "'paper'", "'classic'", "'analytic'"],
    "name": ["NULL", "''", "'nosuch'", "'id'", "'x'", "'a'", "'sketch'", "repeat('y', 100)"],
    "text[]": ["NULL", "'{}'", "'{NULL}'", "'{x}'", "'{a,b,c}'", "'{a,a}'", "'{id}'", "'{nosuch}'",
               "array_fill('a'::text, ARRAY[1000])", "'{{a,b},{c,a}}'", "'{x,a}'"],
    "regclass": ["NULL", "99999999::oid::regclass", "'fz_view'", "'fz_part_1'", "'fz_parted'",
                 "'pg_class'", "'fz_rel'", "'fz_cov_rel'", "'fz_graph_rel'", "'fz_edges'",
                 "'fz_src'", "'jldp_internal.jldp_ledger'", "0::oid::regclass", "'fz_protected'", "'fz_protected_long'",
                 "'fz_protected_edges'"],
    "regrole": ["NULL", "'postgres'", "'pg_monitor'", "0::oid::regrole"],
    "bytea": ["NULL", "'\\x'", "'\\x00'", "decode(repeat('ab', 32), 'hex')",
              "decode(repeat('cd', 1000), 'hex')"],
    "jsonb": ["NULL", "'{}'", "'[]'", "'{\"a\": 1}'", "'null'"],
    "boolean": ["NULL", "true", "false"],
    "boolean[]": ["NULL", "'{}'", "'{t,f,NULL}'", "'{t,f,t}'", "array_fill(true, ARRAY[100000])"],
    "bit varying": ["NULL", "B''", "B'101'", "B'1011'"],
    "jl_noise": ["NULL", "'laplace'", "'gaussian'"],
    "jl_kind": ["NULL", "'rademacher'", "'identity'", "'gaussian'", "'achlioptas'", "'sparse'"],
    "jl_neighbor": ["NULL", "'row'", "'attribute'"],
    "jl_calibration": ["NULL", "'exact'", "'analytic'", "'classic'", "'paper'"],
    "jl_lift": ["NULL", "'always'", "'auto'"],
    "jl_covariance_method": ["NULL", "'gram'", "'product'"],
    "jl_goal": ["NULL", "'distance'", "'clustering'"],
    "jl_attribute": ["NULL", "jl_numeric('a', 0, 7)", "ROW(NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL)::jl_attribute",
                     "ROW('a','category',NULL,NULL,1,'{}',NULL,NULL)::jl_attribute",
                     "ROW('a','numeric','NaN',1,1,NULL,NULL,NULL)::jl_attribute",
                     "ROW('x','vector',0,1,1e-300,NULL,2147483647,NULL)::jl_attribute",
                     "ROW('val','long',0,1,1,NULL,2147483647,'attr')::jl_attribute",
                     "jl_long('attr', 'val', 4, 0, 9)", "jl_edge('u', 'v', 40)",
                     "ROW('u','edge',NULL,NULL,1,NULL,2147483647,'v')::jl_attribute"],
    "jl_attribute[]": ["NULL", "'{}'", "ARRAY[jl_numeric('a', 0, 7)]",
                       "ARRAY[jl_numeric('a', 0, 7), jl_numeric('a', 0, 7)]",
                       "ARRAY[ROW('a','numeric',0,1e308,1,NULL,NULL,NULL)::jl_attribute]",
                       "ARRAY[ROW('x','vector',0,1,1,NULL,1000000,NULL)::jl_attribute]",
                       "ARRAY[ROW(NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL)::jl_attribute]",
                       "ARRAY[jl_long('attr', 'val', 2147483647, 0, 9)]", "ARRAY[jl_long('attr', 'val', 4, 0, 9)]",
                       "ARRAY[jl_category('u', ARRAY(SELECT g::text FROM generate_series(1, 1000) g))]",
                       "ARRAY[NULL::jl_attribute]", "ARRAY[[jl_numeric('a', 0, 7)]]",
                       "ARRAY[jl_numeric('id', 0, 7)]", "ARRAY[jl_vector('x', 4, 0, 7)]",
                       "ARRAY[jl_edge('u', 'v', 40)]", "ARRAY[jl_edge('u', 'v', 1000000)]"],
    "jl_mechanism": ["NULL", "jl_sketch(k => 4)", "jl_sketch(kind => 'identity')",
                     "ROW('sketch', -1, 'rademacher', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism",
                     "ROW('sketch', 10000, 'gaussian', 'gaussian', 1e-300, 'classic', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism",
                     "ROW(NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism",
                     "jl_covariance_mechanism(8, 1e-6)", "jl_covariance_mechanism(100000, 1e-300, 'auto', 'product')",
                     "ROW('covariance', NULL, NULL, NULL, 0.5, NULL, 2147483647, 'auto', 'gram', NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism",
                     "jl_sketch(k => 4, noise => 'gaussian', delta => 0.4)",
                     "jl_sketch(k => 10000, kind => 'gaussian')", "jl_graph(8, 1e-3)",
                     "jl_graph(100000, 1e-300)",
                     "ROW('graph', NULL, NULL, NULL, 0.5, NULL, 2147483647, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism",
                     "jl_advised(dist2 => 1)", "jl_advised(dist2 => 1e-300, dist2_hi => 1e300, force => true)",
                     "jl_advised('clustering', dist2 => 1e300, cluster_var => 1e300, delta => 1e-300)",
                     "ROW('advised', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'clustering', 'NaN', NULL, NULL, true, NULL, NULL)::jl_mechanism",
                     "ROW('advised', NULL, NULL, 'gaussian', NULL, NULL, NULL, NULL, NULL, 'distance', 1, 0.5, NULL, false, NULL, NULL)::jl_mechanism",
                     # sparse densities (0.4's kind words 'sparse(0)', 'sparse(1e308)'):
                     # out of [2^-50, 1], NaN, the smallest allowed at a large k, and
                     # a density on a kind that takes none, past jl_sketch's checks
                     "ROW('sketch', 4, 'sparse', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0)::jl_mechanism",
                     "ROW('sketch', 4, 'sparse', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1e308)::jl_mechanism",
                     "ROW('sketch', 4, 'sparse', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'NaN')::jl_mechanism",
                     "ROW('sketch', 4, 'sparse', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, -1)::jl_mechanism",
                     "ROW('sketch', 4, 'rademacher', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0.5)::jl_mechanism",
                     "jl_sketch(k => 10000, kind => 'sparse', density => 2 ^ -50)",
                     "jl_sketch(k => 4, kind => 'sparse', density => 1)",
                     "jl_sketch(k => 4, calibration => 'paper')"],
}

# a plausible value by argument name, then by type
PLAUSIBLE_NAME = {
    "key": "'pinned'", "neighbor": "'attribute'", "noise": "'laplace'", "kind": "'rademacher'",
    "calibration": "'exact'", "dataset": "'fz'", "id_column": "'id'", "unit_column": "'id'",
    "attr_column": "'attr'", "value_column": "'val'", "u": "'u'", "v": "'v'", "lift": "'always'",
    "method": "'gram'", "goal": "'distance'", "unit": "'id'", "sketch_column": "'sketch'",
    "name": "'fz'", "vector": "'{x}'", "source": "'fz_src'", "edges": "'fz_edges'",
    "release": "'fz_rel'", "sketches": "'fz_rel'", "gid": "'nosuch'", "epsilon": "1",
    "epsilon_cap": "1e12", "delta": "1e-6", "delta_cap": "0.5", "k": "4", "d": "4", "r": "8",
    "n": "40", "bound": "1", "x": "'{1,2,3,4}'", "a": "'{1,2,3,4}'", "b": "'{2,3,4,5}'",
    "query": "'{1,2,3,4}'", "centroids": "'{{1,2,3,4},{0,0,0,0}}'", "sketch": "'{1,2,3,4}'",
    "a_desired": "'{{1},{0},{0},{1}}'", "a_confidential": "'{{0},{1},{0},{0}}'",
    "utility_error": "0.01", "noise_variance": "0.5", "p": "0.25", "n_clusters": "2",
    "seed": "1", "max_iter": "10", "n_init": "1", "s": "'{1,2}'", "spender": "'postgres'",
    "servers": "'{}'", "bits": "'{t,f,t}'", "secret": "decode(repeat('ab', 32), 'hex')",
    "clip_norm": "NULL", "clip_lo": "NULL", "clip_hi": "NULL", "dist2": "1", "dist2_hi": "NULL",
    "cluster_var": "NULL", "value": "1", "attr": "1", "vertex": "1", "n_components": "1",
    "target_attr": "1", "ridge": "0", "intercept": "true", "step": "'{1,1,1,1,1,1,1,1,1,1}'",
    "coef": "'{{1},{1},{1},{1}}'", "eps": "0.5", "sensitivity": "1",
    "attributes": "ARRAY[jl_numeric('a', 0, 7), jl_numeric('b', 0, 5), jl_vector('x', 4, 0, 7)]",
    "mechanism": "jl_sketch(k => 4)", "protected": "'fz_protected'", "row_clip": "NULL",
    "lo": "0", "hi": "7", "weight": "1", "categories": "'{a,b}'", "length": "4",
    "column_name": "'a'", "vertices": "40", "note": "'fuzz'",
}
PLAUSIBLE_TYPE = {
    "double precision": "1", "integer": "2", "bigint": "2", "double precision[]": "'{1,2,3,4}'",
    "integer[]": "'{1,2}'", "text": "'x'", "name": "'x'", "text[]": "'{x}'",
    "regclass": "'fz_src'", "regrole": "'postgres'", "bytea": "'\\x00'", "jsonb": "'{}'",
    "boolean": "true", "boolean[]": "'{t,f}'", "bit varying": "B'101'",
    "jl_noise": "'laplace'", "jl_kind": "'rademacher'", "jl_neighbor": "'row'",
    "jl_calibration": "'exact'", "jl_attribute": "jl_numeric('a', 0, 7)",
    "jl_lift": "'always'", "jl_covariance_method": "'gram'", "jl_goal": "'distance'",
    "jl_attribute[]": "ARRAY[jl_numeric('a', 0, 7)]", "jl_mechanism": "jl_sketch(k => 4)",
}


class Psql:
    """One psql session fed statements through a pipe."""

    def __init__(self):
        self.p = subprocess.Popen(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=0", "-v", "VERBOSITY=verbose"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1, errors="replace")
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("\\o /dev/null\nSET statement_timeout = '%dms';\nSET client_min_messages = error;\n"
                  % int(TIMEOUT_S * 1000))
        self.pid = None
        out = self.run("SELECT pg_backend_pid() AS jl_pid \\gset", "PID :jl_pid")
        if out[0] == "ok":
            self.pid = out[2]

    def _read(self):
        for line in self.p.stdout:
            self.q.put(line.rstrip("\n"))
        self.q.put(None)

    def send(self, text):
        try:
            self.p.stdin.write(text)
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def run(self, sql, echo="", wait=HANG_S + 60):
        """('ok'|'gone'|'hang', lines, echo tail, seconds)."""
        self.send(sql + "\n\\echo @@END " + echo + "\n")
        lines, t0 = [], time.monotonic()
        while True:
            left = wait - (time.monotonic() - t0)
            try:
                line = self.q.get(timeout=max(0.01, left))
            except queue.Empty:
                return ("hang", lines, None, time.monotonic() - t0)
            if line is None:
                return ("gone", lines, None, time.monotonic() - t0)
            if line.startswith("@@END"):
                return ("ok", lines, line[6:].strip(), time.monotonic() - t0)
            lines.append(line)

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()


def admin(sql):
    return subprocess.run(["psql", "-XAtq", "-c", sql], capture_output=True, text=True, timeout=60).stdout.strip()


def routines():
    rows = admin("""
SELECT p.oid, p.proname, p.pronamespace::regnamespace, p.prokind, coalesce(array_to_string(p.proargnames, ','), ''),
       array_to_string(ARRAY(SELECT format_type(t, NULL) FROM unnest(p.proargtypes) t), ','),
       p.pronargdefaults, p.proretset
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'jldp' AND d.deptype = 'e'
 WHERE p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)
   AND NOT 'internal'::regtype = ANY (p.proargtypes::regtype[])
 ORDER BY p.oid""")
    out = []
    for row in rows.split("\n"):
        oid, name, nsp, kind, names, types, ndef, retset = row.split("|")
        types = types.split(",") if types else []
        names = names.split(",") if names else []
        names = (names + [""] * len(types))[:len(types)]
        # called by the schema-qualified name: the internal steps are in
        # jldp_internal, not on the session's search_path
        out.append(dict(oid=oid, name=name, qname="%s.%s" % (nsp, name), kind=kind, names=names, types=types,
                        ndef=int(ndef), retset=retset == "t"))
    return out


def plausible(name, typ):
    if name in PLAUSIBLE_NAME and not (name == "vector" and typ == "double precision[]"):
        return PLAUSIBLE_NAME[name]
    return PLAUSIBLE_TYPE.get(typ, "NULL")


class Counter:
    def __init__(self):
        self.n = 0

    def next(self):
        self.n += 1
        return self.n


TARGETS = Counter()


def call_sql(r, values):
    args = []
    for name, typ, v in zip(r["names"], r["types"], values):
        if name in ("target",) and v == "'x'":
            v = "'fz_out_%d'" % TARGETS.next()
        args.append("%s::%s" % (v, typ) if v != "NULL" else "NULL::%s" % typ)
    if r["kind"] == "p":
        return "CALL %s(%s);" % (r["qname"], ", ".join(args))
    if r["kind"] == "a":
        return "SELECT %s(%s) FROM generate_series(1, 3);" % (r["qname"], ", ".join(args))
    if r["retset"]:
        return "SELECT count(*) FROM %s(%s);" % (r["qname"], ", ".join(args))
    return "SELECT %s(%s);" % (r["qname"], ", ".join(args))


def calls(rs, rng):
    """the single-argument mutations of every routine, shuffled"""
    out = []
    for r in rs:
        base = [plausible(n, t) for n, t in zip(r["names"], r["types"])]
        out.append((r, list(base)))
        for i, t in enumerate(r["types"]):
            for v in HOSTILE.get(t, ["NULL"]):
                if r["name"] in ("jl_key_drop", "jl_key_import", "jl_key_import_wrapped") and v == "'pinned'":
                    continue
                vals = list(base)
                vals[i] = v
                out.append((r, vals))
    rng.shuffle(out)
    return out


def random_call(rs, rng):
    r = rng.choice(rs)
    vals = []
    for n, t in zip(r["names"], r["types"]):
        pool = HOSTILE.get(t, ["NULL"])
        v = plausible(n, t) if rng.random() < 0.6 else rng.choice(pool)
        if r["name"] in ("jl_key_drop", "jl_key_import", "jl_key_import_wrapped") and v == "'pinned'":
            v = "'fz_other'"
        vals.append(v)
    return (r, vals)


def wait_for_server(limit=60):
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        if subprocess.run(["pg_isready", "-q"]).returncode == 0 and admin("SELECT 1") == "1":
            return True
        time.sleep(0.5)
    return False


def main():
    seconds = float(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20261128
    rng = random.Random(seed)
    rs = routines()
    todo = calls(rs, rng)
    charges_sql = ("SELECT count(*) AS jl_charges FROM jldp_internal.jldp_ledger WHERE event IN ('charge', 'reserve') \\gset")
    s = Psql()
    out = s.run(charges_sql, "C :jl_charges")
    charges = int(out[2][2:])
    codes, failures, n, slowest = {}, [], 0, (0.0, "")
    after_charge, timeouts = {}, {}
    t_end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < t_end:
        if i < len(todo):
            r, vals = todo[i]
        else:
            r, vals = random_call(rs, rng)
        i += 1
        sql = call_sql(r, vals)
        status, lines, _, took = s.run(sql, "", wait=HANG_S + 30)
        n += 1
        if status in ("hang", "gone"):
            if status == "hang":
                failures.append("HANG (no answer after %.0f s, statement_timeout %.0f s): %s" % (took, TIMEOUT_S, sql[:300]))
                if s.pid:
                    admin("SELECT pg_terminate_backend(%s)" % s.pid)
            else:
                failures.append("CONNECTION LOST (a crash?): %s" % sql[:300])
            s.close()
            if not wait_for_server():
                failures.append("the server did not come back")
                break
            s = Psql()
            continue
        if took > HANG_S:
            failures.append("SLOW CANCEL (%.1f s under a %.0f s timeout): %s" % (took, TIMEOUT_S, sql[:300]))
        if took > slowest[0]:
            slowest = (took, sql[:200])
        code = "ok"
        msg = ""
        for line in lines:
            m = re.search(r"(ERROR|FATAL|PANIC):  ([0-9A-Z]{5}): (.*)$", line)
            if m:
                code, msg = m.group(2), m.group(3)
                break
        codes[code] = codes.get(code, 0) + 1
        if code == "57014":
            timeouts.setdefault(r["name"], sql[:300])
        if code == "XX000" or code.startswith("58") or code == "57P01":
            failures.append("%s %s: %s" % (code, msg[:200], sql[:300]))
        out = s.run(charges_sql, "C :jl_charges")
        if out[0] != "ok" or not out[2] or not out[2].startswith("C "):
            failures.append("the ledger could not be read after: %s" % sql[:300])
            s.close()
            wait_for_server()
            s = Psql()
            continue
        now = int(out[2][2:])
        if now > charges and code != "ok":
            # refused by what the rows hold, found only while reading them
            # after the charge: the charge stands, and jl_ledger must say
            # that no release recorded it
            flag = s.run("SELECT coalesce(released::text, 'null') AS jl_released FROM public.jl_ledger "
                         "WHERE event = 'charge' ORDER BY id DESC LIMIT 1 \\gset", "R :jl_released")
            if now - charges == 1 and flag[0] == "ok" and flag[2] == "R false":
                after_charge[(r["name"], code, re.sub(r"\d+", "#", msg)[:100])] = sql[:300]
            else:
                failures.append("CHARGE BURNT (the ledger gained %d charge(s), the call failed with %s %s): %s"
                                % (now - charges, code, msg[:160], sql[:300]))
        charges = now
    s.close()
    print("fuzz: %d calls (%d single-argument mutations of %d routines, then random combinations), seed %d"
          % (n, min(i, len(todo)), len(rs), seed))
    print("fuzz: answers: " + ", ".join("%s %d" % (k, v) for k, v in sorted(codes.items(), key=lambda kv: -kv[1])))
    print("fuzz: slowest call %.2f s: %s" % slowest)
    for name, sql in sorted(timeouts.items()):
        print("fuzz: cancelled by statement_timeout (%.0f s), in time: %s" % (TIMEOUT_S, sql))
    for (name, code, msg), sql in sorted(after_charge.items()):
        print("fuzz: refused while reading rows, after the charge (jl_ledger: released false): %s %s %s"
              % (name, code, msg))
    if failures:
        # one line per kind of failure and routine, with its first call
        groups = {}
        for f in failures:
            m = re.match(r"^(.*?): (?:SELECT|CALL) (?:count\(\*\) FROM )?(\w+)\(", f)
            key = (m.group(1)[:120], m.group(2)) if m else (f[:120], "")
            groups.setdefault(key, []).append(f)
        print("FAIL fuzz: %d failing calls, %d kinds" % (len(failures), len(groups)))
        for key, fs in groups.items():
            print("     %dx %s" % (len(fs), fs[0][:600]))
        return 1
    print("ok   fuzz: no crash, no XX000, every call ended within the timeout, no failed call left a charge the ledger does not mark")
    return 0


if __name__ == "__main__":
    sys.exit(main())
