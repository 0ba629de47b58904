/*
 * messages.c - user strings echoed in messages (names of keys, datasets,
 * tables, columns, option words), shortened: a 100 kB name does not make a
 * 100 kB error message or log line.  Every message that echoes a string the
 * caller chose goes through here.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/builtins.h"

#include "pg/common/messages.h"

/* the len bytes at s, shortened; NULL when they need no shortening */
static char *
shorten(const char *s, int len)
{
	int			cut;
	char	   *r;

	if (len <= JL_MSG_MAX_CHARS ||
		pg_mbstrlen_with_len(s, len) <= JL_MSG_MAX_CHARS)
		return NULL;
	cut = pg_mbcharcliplen(s, len, JL_MSG_MAX_CHARS);
	r = palloc(cut + 4);
	memcpy(r, s, cut);
	memcpy(r + cut, "...", 4);
	return r;
}

const char *
jl_msg_str(const char *s)
{
	char	   *r;

	if (s == NULL)
		return "(null)";
	r = shorten(s, strlen(s));
	return r != NULL ? r : s;
}

const char *
jl_msg_text(const text *t)
{
	char	   *r = shorten(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));

	return r != NULL ? r : text_to_cstring(t);
}
