/*
 * role_hint.h - a permission error on one of jldp's routines or views
 * names the role that has it.
 */
#ifndef JLDP_PG_ROLE_HINT_H
#define JLDP_PG_ROLE_HINT_H

/* install the hook (from _PG_init) */
extern void jl_role_hint_init(void);

/* the role (or roles) a routine or view of jldp is granted to, or NULL */
extern const char *jl_role_hint_of(const char *name);

#endif
