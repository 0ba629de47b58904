/*
 * keywrap_master.c - reading the master key (docs/design/keys_at_rest.md).
 *
 * The key is 64 hexadecimal digits (surrounding white space ignored), read
 * from a file that neither group nor others may access, or printed by a
 * command the server runs (as pgsodium's getkey script).  Each backend reads
 * it on first use, again after every configuration reload and again when
 * the file changes; it never appears in a message, and the settings
 * themselves (superuser-only) name only a path or a command.
 */
#include "postgres.h"

#include <sys/stat.h>

#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "pg/keys/keywrap_master.h"

static char *master_key_file = NULL;
static char *master_key_command = NULL;
static char *previous_master_key_file = NULL;
static char *previous_master_key_command = NULL;

typedef struct MasterSlot
{
	char	   *source;			/* "f:<path>" or "c:<command>" it was read from */
	uint64		generation;		/* config_generation when it was read */
	struct stat st;				/* the file's, when read from a file */
	uint8		key[JL_MASTER_KEY_BYTES];
	uint8		id[JL_MASTER_ID_BYTES];
} MasterSlot;

static MasterSlot current_slot;
static MasterSlot previous_slot;

/*
 * Advanced whenever one of the settings is assigned, which includes every
 * configuration reload (SIGHUP) that lists it: the key is then read again,
 * even if the setting's text is the same, because the file or the command's
 * output may have been replaced in place.
 */
static uint64 config_generation = 1;

static void
master_setting_assigned(const char *newval, void *extra)
{
	config_generation++;
}

void
jl_keywrap_master_init(void)
{
	DefineCustomStringVariable("jldp.master_key_file",
							   "File holding the master key that encrypts jldp's key secrets (64 hex digits).",
							   "Readable by the server's user only; set in postgresql.conf.",
							   &master_key_file, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, master_setting_assigned, NULL);
	DefineCustomStringVariable("jldp.master_key_command",
							   "Command printing the master key that encrypts jldp's key secrets (64 hex digits).",
							   "Run by the server on first use in each backend; set in postgresql.conf.",
							   &master_key_command, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, master_setting_assigned, NULL);
	DefineCustomStringVariable("jldp.previous_master_key_file",
							   "File holding the master key being replaced, while jl_key_rewrap() re-encrypts the keys.",
							   NULL, &previous_master_key_file, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, master_setting_assigned, NULL);
	DefineCustomStringVariable("jldp.previous_master_key_command",
							   "Command printing the master key being replaced, while jl_key_rewrap() re-encrypts the keys.",
							   NULL, &previous_master_key_command, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, master_setting_assigned, NULL);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 64 hex digits between optional white space, or ERROR naming only the setting */
static void
parse_master(const char *buf, size_t n, const char *setting, uint8 key[JL_MASTER_KEY_BYTES])
{
	size_t		i = 0,
				j = 0;
	bool		ok = true;

	while (i < n && isspace((unsigned char) buf[i]))
		i++;
	for (j = 0; j < JL_MASTER_KEY_BYTES && ok; j++)
	{
		int			hi = i + 1 < n ? hexval(buf[i]) : -1;
		int			lo = i + 1 < n ? hexval(buf[i + 1]) : -1;

		if (hi < 0 || lo < 0)
			ok = false;
		else
			key[j] = (uint8) (hi * 16 + lo);
		i += 2;
	}
	while (ok && i < n && isspace((unsigned char) buf[i]))
		i++;
	if (!ok || i != n)
	{
		explicit_bzero(key, JL_MASTER_KEY_BYTES);
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("the master key of %s is not 64 hexadecimal digits", setting),
				 errhint("Generate one with: head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n'")));
	}
}

/*
 * parse_master on the n bytes read into buf, then buf wiped, also when the
 * parse refuses them (a function of its own: no caller's variable lives
 * across its longjmp)
 */
static void
parse_then_wipe(char *buf, size_t size, size_t n, const char *setting,
				uint8 key[JL_MASTER_KEY_BYTES])
{
	PG_TRY();
	{
		parse_master(buf, n, setting, key);
	}
	PG_FINALLY();
	{
		explicit_bzero(buf, size);
	}
	PG_END_TRY();
}

static void
read_master_file(const char *path, const char *setting, uint8 key[JL_MASTER_KEY_BYTES],
				 struct stat *stp)
{
	struct stat st;
	char		buf[256];
	ssize_t		r;
	size_t		n = 0;
	int			fd;

	if (stat(path, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat the master key file \"%s\" (%s): %m", path, setting)));
	if (!S_ISREG(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("the master key file \"%s\" (%s) is not a regular file", path, setting)));
	if (st.st_mode & (S_IRWXG | S_IRWXO))
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("the master key file \"%s\" (%s) is accessible to group or others", path, setting),
				 errhint("chmod 600 it, owned by the server's operating-system user.")));
	/* read(), not stdio: no copy of the key is left in a FILE buffer */
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open the master key file \"%s\" (%s): %m", path, setting)));
	while (n < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - n)) != 0)
	{
		if (r < 0)
		{
			if (errno == EINTR)
				continue;
			explicit_bzero(buf, sizeof(buf));
			CloseTransientFile(fd);
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read the master key file \"%s\" (%s): %m", path, setting)));
		}
		n += (size_t) r;
	}
	if (fstat(fd, &st) != 0)
	{
		explicit_bzero(buf, sizeof(buf));
		CloseTransientFile(fd);
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat the master key file \"%s\" (%s): %m", path, setting)));
	}
	CloseTransientFile(fd);
	parse_then_wipe(buf, sizeof(buf), n, setting, key);
	*stp = st;
}

static void
run_master_command(const char *command, const char *setting, uint8 key[JL_MASTER_KEY_BYTES])
{
	char		buf[256];
	char		rest[256];
	size_t		n = 0;
	ssize_t		r;
	int			rc;
	int			fd;
	FILE	   *f;
	bool		too_long = false;

	fflush(NULL);
	f = OpenPipeStream(command, "r");
	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not run the master key command of %s: %m", setting)));
	/* read() on the pipe, not stdio: no copy of the key in a FILE buffer */
	fd = fileno(f);
	for (;;)
	{
		if (n < sizeof(buf))
			r = read(fd, buf + n, sizeof(buf) - n);
		else
			r = read(fd, rest, sizeof(rest));	/* to the end: the command never blocks */
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (n < sizeof(buf))
			n += (size_t) r;
		else
			too_long = true;
	}
	explicit_bzero(rest, sizeof(rest));
	rc = ClosePipeStream(f);
	if (rc != 0 || r < 0)
	{
		explicit_bzero(buf, sizeof(buf));
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("the master key command of %s failed: %s", setting,
						rc != 0 ? wait_result_to_str(rc) : "read error")));
	}
	if (too_long)
		n = 0;					/* refused as not a key */
	parse_then_wipe(buf, sizeof(buf), n, setting, key);
}

/* whether the file at path is no longer the one whose stat was taken */
static bool
file_changed(const char *path, const struct stat *was)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return true;
	return st.st_dev != was->st_dev || st.st_ino != was->st_ino ||
		st.st_size != was->st_size ||
		st.st_mtim.tv_sec != was->st_mtim.tv_sec || st.st_mtim.tv_nsec != was->st_mtim.tv_nsec ||
		st.st_ctim.tv_sec != was->st_ctim.tv_sec || st.st_ctim.tv_nsec != was->st_ctim.tv_nsec;
}

static bool
load(MasterSlot *slot, const char *file, const char *command,
	 const char *file_setting, const char *command_setting,
	 uint8 key[JL_MASTER_KEY_BYTES], uint8 id[JL_MASTER_ID_BYTES])
{
	bool		has_file = file != NULL && file[0] != '\0';
	bool		has_command = command != NULL && command[0] != '\0';
	char	   *source;

	if (has_file && has_command)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("%s and %s are both set", file_setting, command_setting),
				 errhint("Set one of them.")));
	if (!has_file && !has_command)
	{
		if (slot->source)
		{
			pfree(slot->source);
			slot->source = NULL;
			explicit_bzero(slot->key, sizeof(slot->key));
		}
		return false;
	}
	source = psprintf("%c:%s", has_file ? 'f' : 'c', has_file ? file : command);
	/*
	 * Read again when the setting changed, after every configuration reload
	 * (the command's output may have changed), and when the file is not the
	 * one read (replaced or rewritten in place).
	 */
	if (slot->source == NULL || strcmp(slot->source, source) != 0 ||
		slot->generation != config_generation ||
		(has_file && file_changed(file, &slot->st)))
	{
		uint8		k[JL_MASTER_KEY_BYTES];
		struct stat st;

		memset(&st, 0, sizeof(st));
		if (slot->source)
		{
			pfree(slot->source);
			slot->source = NULL;	/* nothing cached if reading fails */
		}
		explicit_bzero(slot->key, sizeof(slot->key));
		PG_TRY();
		{
			if (has_file)
				read_master_file(file, file_setting, k, &st);
			else
				run_master_command(command, command_setting, k);
			slot->source = MemoryContextStrdup(TopMemoryContext, source);
		}
		PG_CATCH();
		{
			explicit_bzero(k, sizeof(k));
			PG_RE_THROW();
		}
		PG_END_TRY();
		memcpy(slot->key, k, sizeof(k));
		explicit_bzero(k, sizeof(k));
		jl_master_id(slot->key, slot->id);
		slot->st = st;
		slot->generation = config_generation;
	}
	pfree(source);
	memcpy(key, slot->key, JL_MASTER_KEY_BYTES);
	memcpy(id, slot->id, JL_MASTER_ID_BYTES);
	return true;
}

bool
jl_master_key(uint8 key[JL_MASTER_KEY_BYTES], uint8 id[JL_MASTER_ID_BYTES])
{
	return load(&current_slot, master_key_file, master_key_command,
				"jldp.master_key_file", "jldp.master_key_command", key, id);
}

bool
jl_previous_master_key(uint8 key[JL_MASTER_KEY_BYTES], uint8 id[JL_MASTER_ID_BYTES])
{
	return load(&previous_slot, previous_master_key_file, previous_master_key_command,
				"jldp.previous_master_key_file", "jldp.previous_master_key_command", key, id);
}
