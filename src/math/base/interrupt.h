/*
 * interrupt.h - how a long loop of the plain-C core lets its caller stop it.
 *
 * Every loop whose length depends on an argument calls jl_interrupt_check()
 * at least every few milliseconds.  Without a hook (the unit tests) it does
 * nothing; the server's glue installs one in _PG_init that runs
 * CHECK_FOR_INTERRUPTS, so a cancel, a statement_timeout or a terminate
 * ends the loop by a non-local exit (ereport's longjmp).  A loop may call
 * it only where it holds nothing that such an exit would leak: no malloc'd
 * memory and no lock; buffers its caller supplies (palloc'd in the server)
 * are fine.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_INTERRUPT_H
#define JLDP_MATH_INTERRUPT_H

#include <stdbool.h>
#include <stddef.h>

/* the hook; NULL: no check */
extern void (*jl_interrupt_hook) (void);

static inline void
jl_interrupt_check(void)
{
	if (jl_interrupt_hook)
		jl_interrupt_hook();
}

/*
 * For a loop that holds malloc'd memory: jl_cancel_pending() tells whether
 * a cancel or terminate is waiting; the loop then frees what it holds and
 * returns its failure, and the caller runs its interrupt check (the glue's
 * CHECK_FOR_INTERRUPTS) before it reports the failure.  Without a hook:
 * never.
 */
extern bool (*jl_cancel_pending_hook) (void);

static inline bool
jl_cancel_pending(void)
{
	return jl_cancel_pending_hook != NULL && jl_cancel_pending_hook();
}

#endif							/* JLDP_MATH_INTERRUPT_H */
