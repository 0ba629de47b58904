/*
 * drop_guard.h - refusing DROP EXTENSION jldp while keys or ledger rows
 * exist, unless jldp.allow_drop is on.
 */
#ifndef JLDP_PG_DROP_GUARD_H
#define JLDP_PG_DROP_GUARD_H

#include "postgres.h"

/* Define the setting jldp.allow_drop (from _PG_init). */
extern void jl_drop_guard_init(void);

#endif
