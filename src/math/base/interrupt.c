/*
 * interrupt.c - the hook of jl_interrupt_check (interrupt.h).
 */
#include "math/base/interrupt.h"

#include <stddef.h>

void		(*jl_interrupt_hook) (void) = NULL;
bool		(*jl_cancel_pending_hook) (void) = NULL;
