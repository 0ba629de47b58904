#!/usr/bin/env bash
# Keys at rest and key distribution (docs/design/keys_at_rest.md).  Two throwaway
# clusters of its own (installed jldp, not the PG* server):
#   1. Without a master key a key is stored as 32 plain bytes: a pg_dump
#      contains its secret (the negative control of 3).
#   2. A master key file (mode 600) in postgresql.conf: jl_key_rewrap()
#      encrypts the key, the projection is unchanged, a file readable by
#      others is refused.
#   3. pg_dump then contains neither the secret nor any 8 bytes of it.
#   4. Restored into cluster 2 without the master key the key cannot be
#      used; with the master key printed by a command it gives the same
#      projection.
#   5. A changed stored secret, or one moved to another key's row, is refused.
#   6. Rotation: a new master key, the old one as previous, jl_key_rewrap();
#      the projection is unchanged and the key opens without the old one.
#   7. Distribution: jl_key_export on cluster 1, jl_key_import_wrapped on
#      cluster 2 under log_statement = all; fingerprints equal; the secret is
#      in neither server's log; under another name the import is refused.
#   8. ALTER EXTENSION jldp UPDATE from 0.2.0 with a master key configured
#      encrypts the plain key.
#   9. With a master key configured a plain secret written into the table is
#      refused (it would be one its writer knows), and so is a fingerprint
#      that is not the secret's; jl_key_rewrap() refuses the latter too.
#  10. With jldp loaded at connection, a role that is not a superuser cannot
#      read the master key settings (SHOW, pg_settings); a superuser can.
#  11. A master key file rewritten in place is read again by a running
#      session without a reload; a command's new output after a reload.
# Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "$0")/../pgenv.sh"
source "$(dirname "$0")/old_library.sh"
jl_multi_start c1
P1=$JL_MULTI_PORT
jl_multi_start c2
P2=$JL_MULTI_PORT
tmp=$JL_MULTI_DIR
q1() { as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$tmp" -p "$P1" -U postgres -d postgres "$@"; }
q2() { as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$tmp" -p "$P2" -U postgres -d postgres "$@"; }
fail=0
check() { jl_check "$@"; }
# an error's message, or "no error"
err() { "$@" 2>&1 >/dev/null | sed -n 's/^.*ERROR: *//p' | head -1 || true; }
master() {  # a new master key file owned by the server's user, mode 600
  as_pg sh -c "umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > '$1'"
}
reload() { "$1" -c "SELECT pg_reload_conf()" >/dev/null; sleep 0.3; }

secret=00112233445566778899aabbccddeeff0123456789abcdef0123456789abcdef
proj="SELECT jl_project('{1,2,3,4}', jl_sketch(k => 4), 'shared')::text"
# the projection as 0.4 and older called it (step 8's 0.3.0, refused by
# this library): jl_project(x, k, key), before 0.5.0's (x, mechanism, key)
proj_old="SELECT jl_project('{1,2,3,4}', 4, 'shared')::text"

# 1. plain
q1 -c "CREATE EXTENSION jldp" -c "SELECT jl_key_import('shared', '\\x$secret')" >/dev/null
check "no master key: stored plain" "$(q1 -c "SELECT length(secret) || ' ' || coalesce(master_key_id, 'none') FROM jldp_internal.jldp_key JOIN jl_keys USING (name)")" "32 none"
before=$(q1 -c "$proj")
as_pg "$PGBIN/pg_dump" -h "$tmp" -p "$P1" -U postgres -f "$tmp/plain.sql" postgres
check "negative control: a dump of a plain key contains the secret" "$(grep -c "$secret" "$tmp/plain.sql" || true)" "1"

# 2. a master key file
master "$tmp/master1"
as_pg chmod 644 "$tmp/master1"
q1 -c "LOAD 'jldp'" -c "ALTER SYSTEM SET jldp.master_key_file = '$tmp/master1'" >/dev/null; reload q1
check "a master key file readable by others is refused" \
  "$(err q1 -c "SELECT jl_master_key_id()")" "the master key file \"$tmp/master1\" (jldp.master_key_file) is accessible to group or others"
as_pg chmod 600 "$tmp/master1"
id1=$(q1 -c "SELECT jl_master_key_id()")
check "the master key has a 32-digit id" "${#id1}" "32"
check "jl_key_rewrap() encrypts the plain key" "$(q1 -c "SELECT jl_key_rewrap()")" "1"
check "a second jl_key_rewrap() has nothing to do" "$(q1 -c "SELECT jl_key_rewrap()")" "0"
check "stored as 77 bytes under the master key" \
  "$(q1 -c "SELECT length(secret) || ' ' || (master_key_id = '$id1') FROM jldp_internal.jldp_key JOIN jl_keys USING (name)")" "77 true"
check "the projection is unchanged" "$(q1 -c "$proj")" "$before"
q1 -c "SELECT jl_key_create('fresh')" >/dev/null
check "a new key is stored encrypted" "$(q1 -c "SELECT length(secret) FROM jldp_internal.jldp_key WHERE name = 'fresh'")" "77"

# 3. the dump reveals nothing
as_pg "$PGBIN/pg_dump" -h "$tmp" -p "$P1" -U postgres -Fc -f "$tmp/wrapped.dump" postgres
as_pg "$PGBIN/pg_dump" -h "$tmp" -p "$P1" -U postgres -f "$tmp/wrapped.sql" postgres
hits=0
for i in $(seq 0 2 48); do grep -q "${secret:$i:16}" "$tmp/wrapped.sql" && hits=$((hits + 1)); done
check "a dump contains no 8 consecutive bytes of the secret" "$hits" "0"

# 4. restore elsewhere
as_pg "$PGBIN/pg_restore" -h "$tmp" -p "$P2" -U postgres -d postgres "$tmp/wrapped.dump"
check "restored without the master key, the key cannot be used" \
  "$(err q2 -c "$proj")" "the stored secret of key \"shared\" is encrypted under master key $id1, which is not configured here"
q2 -c "LOAD 'jldp'" -c "ALTER SYSTEM SET jldp.master_key_command = 'cat $tmp/master1'" >/dev/null; reload q2
check "with the master key from a command: the same projection" "$(q2 -c "$proj")" "$before"
q2 -c "LOAD 'jldp'" -c "ALTER SYSTEM SET jldp.master_key_command = 'false'" >/dev/null; reload q2
check "a failing master key command is an error" \
  "$(err q2 -c "SELECT jl_master_key_id()")" "the master key command of jldp.master_key_command failed: child process exited with exit code 1"
q2 -c "LOAD 'jldp'" -c "ALTER SYSTEM SET jldp.master_key_command = 'echo 00'" >/dev/null; reload q2
check "a command printing no key is an error" \
  "$(err q2 -c "SELECT jl_master_key_id()")" "the master key of jldp.master_key_command is not 64 hexadecimal digits"

# 5. tampering
q1 -c "UPDATE jldp_internal.jldp_key SET secret = set_byte(secret, 40, get_byte(secret, 40) # 1) WHERE name = 'fresh'" >/dev/null
check "a changed stored secret is refused" "$(err q1 -c "SELECT jl_project('{1}', jl_sketch(k => 2), 'fresh')")" "the stored secret of key \"fresh\" does not authenticate"
q1 -c "UPDATE jldp_internal.jldp_key SET secret = (SELECT secret FROM jldp_internal.jldp_key WHERE name = 'shared') WHERE name = 'fresh'" >/dev/null
check "a secret moved to another key's row is refused" "$(err q1 -c "SELECT jl_project('{1}', jl_sketch(k => 2), 'fresh')")" "the stored secret of key \"fresh\" does not authenticate"
q1 -c "DELETE FROM jldp_internal.jldp_key WHERE name = 'fresh'" >/dev/null

# 6. rotation
master "$tmp/master2"
q1 -c "LOAD 'jldp'" -c "ALTER SYSTEM SET jldp.master_key_file = '$tmp/master2'" \
   -c "ALTER SYSTEM SET jldp.previous_master_key_file = '$tmp/master1'" >/dev/null; reload q1
id2=$(q1 -c "SELECT jl_master_key_id()")
check "rotation: the previous master key still opens the key" "$(q1 -c "$proj")" "$before"
check "rotation: jl_key_rewrap() re-encrypts it" "$(q1 -c "SELECT jl_key_rewrap()")" "1"
q1 -c "LOAD 'jldp'" -c "ALTER SYSTEM RESET jldp.previous_master_key_file" >/dev/null; reload q1
check "rotation: under the new master key only" "$(q1 -c "SELECT master_key_id = '$id2' FROM jl_keys WHERE name = 'shared'")" "t"
check "rotation: the projection is unchanged" "$(q1 -c "$proj")" "$before"

# 7. distribution: cluster 2 gets master2 too
q2 -c "LOAD 'jldp'" -c "ALTER SYSTEM SET jldp.master_key_command = 'cat $tmp/master2'" \
   -c "ALTER SYSTEM SET log_statement = 'all'" >/dev/null; reload q2
q1 -c "LOAD 'jldp'" -c "ALTER SYSTEM SET log_statement = 'all'" >/dev/null; reload q1
q2 -c "DELETE FROM jldp_internal.jldp_key" >/dev/null
blob=$(q1 -c "SELECT jl_key_export('shared')")
check "the export is 77 bytes" "$(q1 -c "SELECT length('$blob'::bytea)")" "77"
fp1=$(q1 -c "SELECT fingerprint FROM jl_keys WHERE name = 'shared'")
check "import on another server: the same fingerprint" "$(q2 -c "SELECT jl_key_import_wrapped('shared', '$blob')")" "$fp1"
check "and the same projection" "$(q2 -c "$proj")" "$before"
check "an export imported under another name is refused" \
  "$(err q2 -c "SELECT jl_key_import_wrapped('other', '$blob')")" "the exported secret of key \"other\" does not authenticate"
check "an at-rest form is not an export" \
  "$(err q2 -c "SELECT jl_key_import_wrapped('x', (SELECT secret FROM jldp_internal.jldp_key WHERE name = 'shared'))")" "the exported secret of key \"x\" is malformed"
check "the export and import are in the server logs" "$(grep -c "jl_key_import_wrapped('shared'" "$tmp/c2.log" || true)" "1"
leaks=0
for i in $(seq 0 2 48); do grep -q "${secret:$i:16}" "$tmp/c2.log" "$tmp/c1.log" && leaks=$((leaks + 1)); done
# cluster 1's log holds the jl_key_import of step 1 only if it was logged: it was not (log_statement was off)
check "the secret is in neither server's log" "$leaks" "0"

# 8. the 0.3.0 update encrypts plain keys when a master key is configured
as_pg psql -qX -h "$tmp" -p "$P2" -U postgres -d postgres -c "CREATE DATABASE up" >/dev/null
qu() { as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$tmp" -p "$P2" -U postgres -d up "$@"; }
# the key imported by 0.2.0's library (test/integration/old_library.sh), updated by this one
jl_library_use "$(jl_old_library 0.2.0)" -h "$tmp" -p "$P2" -U postgres
qu -c "CREATE EXTENSION jldp VERSION '0.2.0'" -c "SELECT jl_key_import('shared', '\\x$secret')" >/dev/null ||
  { jl_library_current -h "$tmp" -p "$P2" -U postgres; exit 1; }
jl_library_current -h "$tmp" -p "$P2" -U postgres
check "0.2.0 stores the key plain" "$(qu -c "SELECT length(secret) FROM jldp_key")" "32"
qu -c "ALTER EXTENSION jldp UPDATE TO '0.3.0'" >/dev/null
check "the update to 0.3.0 with a master key configured encrypts it" \
  "$(qu -c "SELECT length(secret) FROM jldp_key")" "77"
check "this library refuses the 0.3.0 SQL's calls until the update" \
  "$(err qu -c "$proj_old")" "jldp's library is version $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$JLDP_TOP/jldp.control"), and its SQL in this database is version 0.3.0"
qu -c "ALTER EXTENSION jldp UPDATE" >/dev/null
check "updated, the key is wrapped by the master key" \
  "$(qu -c "SELECT length(secret) || ' ' || master_key_id FROM jldp_internal.jldp_key JOIN jl_keys USING (name)")" "77 $id2"
check "and the projection is unchanged" "$(qu -c "$proj")" "$before"

# 9. downgrade to a plain secret, altered fingerprint (cluster 1, master2)
planted=ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100
q1 -c "SELECT jl_key_import('ref', '\\x$planted')" >/dev/null
planted_fp=$(q1 -c "SELECT fingerprint FROM jl_keys WHERE name = 'ref'")
q1 -c "CREATE TABLE saved AS SELECT * FROM jldp_internal.jldp_key WHERE name = 'shared'" >/dev/null
q1 -c "UPDATE jldp_internal.jldp_key SET secret = '\\x$planted', fingerprint = '$planted_fp' WHERE name = 'shared'" >/dev/null
check "a plain secret written with a master key configured is refused" \
  "$(err q1 -c "$proj")" "the secret of key \"shared\" is stored unencrypted, and a master key is configured"
q1 -c "UPDATE jldp_internal.jldp_key SET fingerprint = (SELECT fingerprint FROM saved) WHERE name = 'shared'" >/dev/null
check "jl_key_rewrap() refuses a plain secret whose fingerprint is not its own" \
  "$(err q1 -c "SELECT jl_key_rewrap()")" "the stored fingerprint of key \"shared\" is not its secret's"
q1 -c "UPDATE jldp_internal.jldp_key SET secret = (SELECT secret FROM saved), fingerprint = '$planted_fp' WHERE name = 'shared'" >/dev/null
check "a stored fingerprint that is not the secret's is refused" \
  "$(err q1 -c "$proj")" "the stored fingerprint of key \"shared\" is not its secret's"
q1 -c "UPDATE jldp_internal.jldp_key SET fingerprint = (SELECT fingerprint FROM saved) WHERE name = 'shared'" -c "DROP TABLE saved" >/dev/null
check "restored, the key gives the same projection" "$(q1 -c "$proj")" "$before"
q1 -c "SELECT jl_key_drop('ref')" >/dev/null

# 10. the settings are for superusers only
# (loaded at connection: before a session loads jldp its settings are
# placeholders, which PostgreSQL shows to every role; docs/design/keys_at_rest.md)
q1 -c "CREATE ROLE plain_role LOGIN" -c "ALTER SYSTEM SET session_preload_libraries = 'jldp'" >/dev/null; reload q1
qr() { as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$tmp" -p "$P1" -U plain_role -d postgres "$@"; }
for g in master_key_file master_key_command previous_master_key_file previous_master_key_command; do
  check "SHOW jldp.$g is refused to a role that is not a superuser" \
    "$(err qr -c "SHOW jldp.$g")" "must be superuser or have privileges of pg_read_all_settings to examine \"jldp.$g\""
done
check "pg_settings shows no master key setting to it" \
  "$(qr -c "SELECT count(*) FROM pg_settings WHERE name LIKE 'jldp.%master_key%'")" "0"
check "negative control: a superuser sees the file" "$(q1 -c "SHOW jldp.master_key_file")" "$tmp/master2"

# 11. a master key replaced in place (one session throughout)
master "$tmp/master3"
as_pg sh -c "umask 077; cp '$tmp/master2' '$tmp/inplace'"
q1 -c "LOAD 'jldp'" -c "ALTER SYSTEM SET jldp.master_key_file = '$tmp/inplace'" >/dev/null; reload q1
ids=$(q1 -c "SELECT jl_master_key_id()" -c "\\! cat '$tmp/master3' > '$tmp/inplace'" -c "SELECT jl_master_key_id()" | tr '\n' ' ')
id3=$(q1 -c "SELECT jl_master_key_id()")
check "a key file rewritten in place is read again by a running session" "$ids" "$id2 $id3 "
check "the new key is another key" "$([ "$id3" != "$id2" ] && echo differs)" "differs"
as_pg sh -c "umask 077; cp '$tmp/master2' '$tmp/cmdkey'"
q1 -c "LOAD 'jldp'" -c "ALTER SYSTEM RESET jldp.master_key_file" \
   -c "ALTER SYSTEM SET jldp.master_key_command = 'cat $tmp/cmdkey'" >/dev/null; reload q1
ids=$(q1 -c "SELECT jl_master_key_id()" -c "\\! cat '$tmp/master3' > '$tmp/cmdkey'" \
         -c "SELECT pg_reload_conf()" -c "\\! sleep 0.5" -c "SELECT jl_master_key_id()" | tr '\n' ' ')
check "a command's new output is read after a reload by a running session" "$ids" "$id2 t $id3 "

[ $fail -eq 0 ] && echo "keys at rest: all checks passed"
exit $fail
