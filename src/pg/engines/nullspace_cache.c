/*
 * nullspace_cache.c - per-backend cache of null-space cleaning models (see
 * nullspace_cache.h).  Entries live in malloc'd blocks owned by the cache;
 * a call site keeps an entry's id, never a bare pointer across evictions.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/memutils.h"

#include "pg/engines/nullspace_cache.h"

typedef struct NsEntry
{
	uint64		id;				/* 0: empty */
	uint64		last_used;
	uint32		hash;
	int			method;
	int			d;
	int			md;
	int			mc;
	double	   *key;			/* Ad then Ac, malloc'd */
	JlNsModel  *model;
	Size		bytes;
} NsEntry;

static NsEntry cache[JL_NS_CACHE_ENTRIES];
static uint64 next_id = 1;
static uint64 clock_tick = 0;

static void
entry_free(NsEntry *e)
{
	free(e->key);
	jl_ns_model_free(e->model);
	memset(e, 0, sizeof(*e));
}

static Size
cached_bytes(void)
{
	Size		b = 0;
	int			i;

	for (i = 0; i < JL_NS_CACHE_ENTRIES; i++)
		if (cache[i].id)
			b += cache[i].bytes;
	return b;
}

/* the least recently used entry in use, or NULL if none is */
static NsEntry *
lru_used(void)
{
	NsEntry    *v = NULL;
	int			i;

	for (i = 0; i < JL_NS_CACHE_ENTRIES; i++)
		if (cache[i].id != 0 && (v == NULL || cache[i].last_used < v->last_used))
			v = &cache[i];
	return v;
}

/* the least recently used entry, or an empty one */
static NsEntry *
victim(void)
{
	NsEntry    *v = &cache[0];
	int			i;

	for (i = 0; i < JL_NS_CACHE_ENTRIES; i++)
	{
		if (cache[i].id == 0)
			return &cache[i];
		if (cache[i].last_used < v->last_used)
			v = &cache[i];
	}
	return v;
}

const JlNsModel *
jl_ns_cache_still(uint64 id)
{
	int			i;

	for (i = 0; i < JL_NS_CACHE_ENTRIES; i++)
		if (cache[i].id == id && id != 0)
		{
			cache[i].last_used = ++clock_tick;
			return cache[i].model;
		}
	return NULL;
}

const JlNsModel *
jl_ns_cache_get(int method, int d, int md, int mc, const double *Ad,
				const double *Ac, uint64 *id)
{
	Size		nd = (Size) d * md,
				nc = (Size) d * mc,
				keybytes = (nd + nc) * sizeof(double);
	uint32		h;
	int			i;
	NsEntry    *e;
	JlNsModel  *model = NULL;
	JlNsStatus	st;
	double	   *key;
	Size		need = jl_ns_model_bytes(method, d, md, mc);

	h = hash_bytes((const unsigned char *) Ad, (int) (nd * sizeof(double)));
	if (nc > 0)
		h = hash_combine(h, hash_bytes((const unsigned char *) Ac,
									   (int) (nc * sizeof(double))));
	h = hash_combine(h, (uint32) method);
	for (i = 0; i < JL_NS_CACHE_ENTRIES; i++)
	{
		e = &cache[i];
		if (e->id != 0 && e->hash == h && e->method == method && e->d == d &&
			e->md == md && e->mc == mc &&
			memcmp(e->key, Ad, nd * sizeof(double)) == 0 &&
			(nc == 0 || memcmp(e->key + nd, Ac, nc * sizeof(double)) == 0))
		{
			e->last_used = ++clock_tick;
			*id = e->id;
			return e->model;
		}
	}

	if (need == 0 || need > JL_NS_CACHE_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the null-space cleaning model is too large (d = %d, %d + %d outputs)",
						d, md, mc)));
	/* room first: evict the least recently used until it fits */
	while (cached_bytes() + need + keybytes > JL_NS_CACHE_BYTES && lru_used() != NULL)
		entry_free(lru_used());

	st = jl_ns_model_build(method, d, md, mc, Ad, Ac, &model);
	switch (st)
	{
		case JL_NS_OK:
			break;
		case JL_NS_RANK_ZERO_DESIRED:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a_desired has rank zero (every coefficient is 0)"),
					 errdetail("A predictor that sees nothing of x leaves nothing to keep.")));
			break;
		case JL_NS_RANK_ZERO_CONFIDENTIAL:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a_confidential has rank zero (every coefficient is 0)")));
			break;
		case JL_NS_OVERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("the null-space cleaning model is too large to decompose: a singular value overflows"),
					 errhint("Scale the coefficients down: with a_desired and a_confidential multiplied by c and utility_error by c^2 the guarantee is the same.")));
			break;
		case JL_NS_NO_MEMORY:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory decomposing the null-space cleaning model")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("LAPACK failed to decompose the null-space cleaning model")));
	}
	key = malloc(keybytes);
	if (key == NULL)
	{
		jl_ns_model_free(model);
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory caching the null-space cleaning model")));
	}
	memcpy(key, Ad, nd * sizeof(double));
	if (nc > 0)
		memcpy(key + nd, Ac, nc * sizeof(double));
	e = victim();
	if (e->id != 0)
		entry_free(e);
	e->id = next_id++;
	e->last_used = ++clock_tick;
	e->hash = h;
	e->method = method;
	e->d = d;
	e->md = md;
	e->mc = mc;
	e->key = key;
	e->model = model;
	e->bytes = model->bytes + keybytes;
	*id = e->id;
	return model;
}
