-- DROP EXTENSION (its schemas, its owner) refused while keys or ledger rows exist

-- DROP EXTENSION jldp, DROP SCHEMA ... CASCADE of its schema and DROP OWNED
-- BY its owner are refused while keys or ledger rows exist, unless
-- SET jldp.allow_drop = on (superusers)
CREATE FUNCTION jldp_internal.jl_drop_guard()
RETURNS event_trigger
AS 'MODULE_PATHNAME', 'jl_drop_guard'
LANGUAGE C;

COMMENT ON FUNCTION jldp_internal.jl_drop_guard() IS
  'Event trigger: refuses to drop jldp (the extension, its schema, its owner''s objects) while keys or ledger rows exist, unless jldp.allow_drop is on.';

CREATE EVENT TRIGGER jldp_drop_guard ON ddl_command_start
  WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
  EXECUTE FUNCTION jldp_internal.jl_drop_guard();
