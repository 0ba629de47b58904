/*
 * registry.h - the release registry (jldp_release): what a release wrote,
 * read back for recovery.
 */
#ifndef JLDP_PG_REGISTRY_H
#define JLDP_PG_REGISTRY_H

#include "postgres.h"

#include "fmgr.h"

typedef struct JlReleaseNoise
{
	Oid			target;
	int			k;
	double		noise_variance;
	char		noise[NAMEDATALEN];	/* info->>'noise', "laplace" if absent */
} JlReleaseNoise;

/*
 * The release that wrote the table target: its k, noise variance and
 * noise, cached per call site.  The caller must be able to read target.
 */
extern const JlReleaseNoise *jl_release_noise(FunctionCallInfo fcinfo, Oid target);

#endif
