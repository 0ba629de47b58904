/*
 * keywrap_master.c - reading the master key (docs/keys_at_rest.md).
 *
 * The key is 64 hexadecimal digits (surrounding white space ignored), read
 * from a file that neither group nor others may access, or printed by a
 * command the server runs (as pgsodium's getkey script).  Each backend reads
 * it on first use and again when the setting changes; it never appears in a
 * message, and the settings themselves name only a path or a command.
 */
#include "postgres.h"

#include <sys/stat.h>

#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "pg/keywrap_master.h"

static char *master_key_file = NULL;
static char *master_key_command = NULL;
static char *previous_master_key_file = NULL;
static char *previous_master_key_command = NULL;

typedef struct MasterSlot
{
	char	   *source;			/* "f:<path>" or "c:<command>" it was read from */
	uint8		key[JL_MASTER_KEY_BYTES];
	uint8		id[JL_MASTER_ID_BYTES];
} MasterSlot;

static MasterSlot current_slot;
static MasterSlot previous_slot;

void
jl_keywrap_master_init(void)
{
	DefineCustomStringVariable("jldp.master_key_file",
							   "File holding the master key that encrypts jldp's key secrets (64 hex digits).",
							   "Readable by the server's user only; set in postgresql.conf.",
							   &master_key_file, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomStringVariable("jldp.master_key_command",
							   "Command printing the master key that encrypts jldp's key secrets (64 hex digits).",
							   "Run by the server on first use in each backend; set in postgresql.conf.",
							   &master_key_command, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomStringVariable("jldp.previous_master_key_file",
							   "File holding the master key being replaced, while jl_key_rewrap() re-encrypts the keys.",
							   NULL, &previous_master_key_file, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomStringVariable("jldp.previous_master_key_command",
							   "Command printing the master key being replaced, while jl_key_rewrap() re-encrypts the keys.",
							   NULL, &previous_master_key_command, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
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

static void
read_master_file(const char *path, const char *setting, uint8 key[JL_MASTER_KEY_BYTES])
{
	struct stat st;
	char		buf[256];
	size_t		n;
	FILE	   *f;

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
	f = AllocateFile(path, "r");
	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open the master key file \"%s\" (%s): %m", path, setting)));
	n = fread(buf, 1, sizeof(buf), f);
	FreeFile(f);
	parse_master(buf, n, setting, key);
	explicit_bzero(buf, sizeof(buf));
}

static void
run_master_command(const char *command, const char *setting, uint8 key[JL_MASTER_KEY_BYTES])
{
	char		buf[256];
	size_t		n;
	int			rc;
	FILE	   *f;
	bool		too_long = false;

	fflush(NULL);
	f = OpenPipeStream(command, "r");
	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not run the master key command of %s: %m", setting)));
	n = fread(buf, 1, sizeof(buf), f);
	/* read to the end so that the command never blocks on a full pipe */
	while (!feof(f) && !ferror(f))
	{
		char		rest[256];

		if (fread(rest, 1, sizeof(rest), f) > 0)
			too_long = true;
	}
	rc = ClosePipeStream(f);
	if (rc != 0)
	{
		explicit_bzero(buf, sizeof(buf));
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("the master key command of %s failed: %s", setting, wait_result_to_str(rc))));
	}
	if (too_long)
		n = 0;					/* refused as not a key */
	parse_master(buf, n, setting, key);
	explicit_bzero(buf, sizeof(buf));
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
	if (slot->source == NULL || strcmp(slot->source, source) != 0)
	{
		uint8		k[JL_MASTER_KEY_BYTES];

		if (has_file)
			read_master_file(file, file_setting, k);
		else
			run_master_command(command, command_setting, k);
		if (slot->source)
			pfree(slot->source);
		slot->source = MemoryContextStrdup(TopMemoryContext, source);
		memcpy(slot->key, k, sizeof(k));
		jl_master_id(slot->key, slot->id);
		explicit_bzero(k, sizeof(k));
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
