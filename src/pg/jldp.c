/*
 * jldp.c - module initialisation and the library's version.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "math/base/interrupt.h"
#include "pg/budget/charge_worker.h"
#include "pg/api/admin/drop_guard.h"
#include "pg/api/admin/role_hint.h"
#include "pg/keys/keywrap_master.h"

PG_MODULE_MAGIC;

extern void openblas_set_num_threads(int num_threads);

/*
 * The threaded OpenBLAS builds start their thread pool when the library is
 * loaded, before _PG_init runs, and an idle pool thread spins (sched_yield)
 * for about a tenth of a second before it sleeps: every backend and every
 * parallel worker that loaded jldp burned that much CPU on the other core
 * and kept a thread.  Weak, since the serial build has no pool.
 */
extern int	blas_thread_shutdown_(void) __attribute__((weak));

void		_PG_init(void);

/* the plain-C core's long loops stop here on a cancel (math/base/interrupt.h) */
static void
check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

/* ... and loops that hold memory stop and return when this is true */
static bool
cancel_pending(void)
{
	return QueryCancelPending || ProcDiePending;
}

void
_PG_init(void)
{
	/* parallel query supplies the parallelism: one BLAS thread per backend */
	openblas_set_num_threads(1);
	if (blas_thread_shutdown_)
		blas_thread_shutdown_();
	jl_interrupt_hook = check_interrupts;
	jl_cancel_pending_hook = cancel_pending;
	jl_drop_guard_init();
	jl_charge_worker_init();
	jl_keywrap_master_init();
	jl_role_hint_init();
}

