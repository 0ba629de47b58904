-- The version has one source, jldp.control: the library reads it at build
-- time, the registry's default and jl_release_info read the library.
SELECT extversion FROM pg_extension WHERE extname = 'jldp';
SELECT jldp_version() = extversion AS library_is_extversion
  FROM pg_extension WHERE extname = 'jldp';
SELECT jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>'version' = jldp_version() AS info_is_library;
SELECT pg_get_expr(d.adbin, d.adrelid) AS registry_version_default
  FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
  WHERE d.adrelid = 'jldp_internal.jldp_release'::regclass AND a.attname = 'version';

-- every table and view of the extension has its comment
SELECT c.relname, c.relkind, obj_description(c.oid, 'pg_class') IS NOT NULL AS has_comment
  FROM pg_depend d JOIN pg_class c ON c.oid = d.objid
  WHERE d.classid = 'pg_class'::regclass AND d.deptype = 'e' AND c.relkind IN ('r', 'v')
    AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'jldp')
  ORDER BY c.relname;
SELECT obj_description('jldp_internal.jldp_release'::regclass, 'pg_class') AS registry_comment;

-- choosing k runs in parallel workers too
SELECT p.oid::regprocedure AS function, provolatile, proparallel
  FROM pg_proc p WHERE proname IN ('jl_suggest_k', 'jl_suggest_k_info', 'jldp_version')
  ORDER BY proname;
