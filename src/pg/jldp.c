/*
 * jldp.c - module initialisation.
 */
#include "postgres.h"

#include "fmgr.h"

PG_MODULE_MAGIC;

extern void openblas_set_num_threads(int num_threads);

void		_PG_init(void);

void
_PG_init(void)
{
	/* parallel query supplies the parallelism: one BLAS thread per backend */
	openblas_set_num_threads(1);
}
