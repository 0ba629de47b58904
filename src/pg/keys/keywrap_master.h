/*
 * keywrap_master.h - the master key that encrypts the secrets of jldp_key,
 * held outside the database: a file only the server can read, or a command
 * that prints it (settings jldp.master_key_file / jldp.master_key_command,
 * and jldp.previous_master_key_file / _command while keys are rewrapped
 * under a new one).  Only postgresql.conf (or ALTER SYSTEM) can set them.
 */
#ifndef JLDP_PG_KEYWRAP_MASTER_H
#define JLDP_PG_KEYWRAP_MASTER_H

#include "postgres.h"

#include "math/crypto/keywrap.h"

extern void jl_keywrap_master_init(void);

/* the configured master key and its id; false when none is configured */
extern bool jl_master_key(uint8 key[JL_MASTER_KEY_BYTES], uint8 id[JL_MASTER_ID_BYTES]);

/* the previous master key (rotation); false when none is configured */
extern bool jl_previous_master_key(uint8 key[JL_MASTER_KEY_BYTES], uint8 id[JL_MASTER_ID_BYTES]);

#endif
