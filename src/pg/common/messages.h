/*
 * messages.h - user strings echoed in messages, shortened.
 */
#ifndef JLDP_PG_MESSAGES_H
#define JLDP_PG_MESSAGES_H

#include "postgres.h"

/* characters of a user string that a message echoes */
#define JL_MSG_MAX_CHARS 64

/*
 * s as a message may echo it: at most JL_MSG_MAX_CHARS characters (never
 * cutting a multibyte character), followed by "..." when shortened.  s
 * itself is returned when short enough; otherwise a palloc'd copy.
 */
extern const char *jl_msg_str(const char *s);

/* the same for a text value */
extern const char *jl_msg_text(const text *t);

#endif
