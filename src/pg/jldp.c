/*
 * jldp.c - module initialisation and the library's version.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "pg/drop_guard.h"
#include "pg/keywrap_master.h"

PG_MODULE_MAGIC;

extern void openblas_set_num_threads(int num_threads);

void		_PG_init(void);

void
_PG_init(void)
{
	/* parallel query supplies the parallelism: one BLAS thread per backend */
	openblas_set_num_threads(1);
	jl_drop_guard_init();
	jl_keywrap_master_init();
}

/*
 * The version of the loaded library.  JLDP_VERSION comes from the control
 * file's default_version (see the Makefile), its only source.
 */
PG_FUNCTION_INFO_V1(jldp_version);
Datum
jldp_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(JLDP_VERSION));
}
