/*
 * table_release.c - jl_release_table: a whole table (or the rows of a
 * relation) released into a new private table (id, sketch) in one call,
 * with clipping, a budget charge and a registry record.
 *
 * Rows are fetched through an SPI cursor in batches, projected together with
 * one BLAS level-3 product (X P for a batch of rows), noised on the grid as
 * jl_private_release does, and inserted straight into the new heap.  All of
 * it happens in the caller's transaction: a failure or a cancel leaves no
 * target, no charge and no registry row behind.
 */
#include "postgres.h"

#include "fmgr.h"

#include <cblas.h>
#include <math.h>

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "portability/instr_time.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "pg/budget.h"
#include "math/grid.h"
#include "math/laplace.h"
#include "math/release.h"

#include "pg/arrays.h"
#include "pg/keystore.h"
#include "pg/options.h"
#include "pg/owner.h"
#include "pg/projection_cache.h"
#include "pg/strong_random.h"

PG_FUNCTION_INFO_V1(jl_release_table);

/* argument number of noise */
#define NOISE_ARG 16

#define BATCH_ROWS 512
#define PROGRESS_SECONDS 5.0

typedef enum ClipKind
{
	CLIP_NONE,
	CLIP_ELEMENT,				/* clamp each element to [lo, hi] */
	CLIP_NORM					/* scale each row to L2 norm <= C */
} ClipKind;

static char *
required_text(FunctionCallInfo fcinfo, int n, const char *what)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what)));
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

/* A column of relid by name: its number and type, or ERROR. */
static AttrNumber
column_of(Oid relid, const char *name, Oid *type)
{
	AttrNumber	att = get_attnum(relid, name);

	if (att == InvalidAttrNumber || att < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation %s does not exist",
						name, get_rel_name(relid))));
	*type = get_atttype(relid, att);
	return att;
}

static bool
numeric_type(Oid t)
{
	return t == FLOAT8OID || t == FLOAT4OID || t == INT2OID || t == INT4OID ||
		t == INT8OID || t == NUMERICOID;
}

/* Clamp or scale x in place. */
static void
clip_row(double *x, int d, ClipKind clip, double lo, double hi, double c)
{
	int			i;

	if (clip == CLIP_ELEMENT)
	{
		for (i = 0; i < d; i++)
			x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
	}
	else if (clip == CLIP_NORM)
	{
		double		n2 = 0.0;

		for (i = 0; i < d; i++)
			n2 += x[i] * x[i];
		if (n2 > c * c)
		{
			/* a hair inside, so rounding cannot leave the norm above c */
			double		s = c / sqrt(n2) * (1.0 - 1e-12);

			for (i = 0; i < d; i++)
				x[i] *= s;
		}
	}
}

static void
json_num(StringInfo b, const char *name, double v)
{
	if (isfinite(v))
		appendStringInfo(b, ", \"%s\": %.17g", name, v);
	else
		appendStringInfo(b, ", \"%s\": null", name);
}

typedef struct Releaser
{
	DestReceiver pub;
	/* configuration */
	const JlKey *key;
	JlKind		kind;			/* as parsed: 'sparse' resolved with d */
	int			k;
	int			d;				/* -1 until the first row (array column) */
	ClipKind	clip;
	double		clip_lo,
				clip_hi,
				clip_c;
	const char *id_col;
	int16		id_len;
	bool		id_byval;
	/* set up at the first row */
	JlMechanism	m;				/* options filled in by the caller */
	JlProjection *proj;
	double	   *X;				/* BATCH_ROWS x d */
	double	   *Y;				/* BATCH_ROWS x k */
	bool	   *compensated;	/* per row of the batch */
	Datum	   *ids;
	/* output */
	Relation	target;
	BulkInsertState bistate;
	TupleTableSlot **slots;
	MemoryContext batch_cxt;	/* reset after each batch */
	MemoryContext setup_cxt;	/* lives for the whole release */
	int			n;				/* rows in the current batch */
	int64		nrows;
	instr_time	start,
				last_report;
} Releaser;

static void
releaser_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
releaser_shutdown(DestReceiver *self)
{
}

static void
releaser_destroy(DestReceiver *self)
{
}

/* Calibrate to the realized P once the vector length is known. */
static void
releaser_setup(Releaser *rl)
{
	MemoryContext old = MemoryContextSwitchTo(rl->setup_cxt);
	JlMechanism  *m = &rl->m;

	rl->proj = jl_projection_get(rl->key->secret, rl->kind, rl->k, rl->d);
	jl_calibrate_on(m, rl->proj);
	jl_refuse_invalid(m);
	if (m->t <= JL_LAPLACE_TABLE_MAX_T)
	{
		uint32	   *table = MemoryContextAllocHuge(rl->setup_cxt, sizeof(uint32) * m->t);

		jl_laplace_table_fill(m->t, table);
		m->noise_table = table;
	}
	rl->X = palloc(sizeof(double) * BATCH_ROWS * (Size) rl->d);
	rl->Y = palloc(sizeof(double) * BATCH_ROWS * (Size) rl->k);
	rl->ids = palloc(sizeof(Datum) * BATCH_ROWS);
	rl->compensated = palloc(sizeof(bool) * BATCH_ROWS);
	MemoryContextSwitchTo(old);
}

/* Project the batch with one BLAS level-3 product, noise it, insert it. */
static void
releaser_flush(Releaser *rl)
{
	int			r;
	MemoryContext old;

	if (rl->n == 0)
		return;
	old = MemoryContextSwitchTo(rl->batch_cxt);
	if (rl->proj->has_csr)
		jl_csr_project_rows(&rl->proj->csr, rl->X, rl->n, rl->Y);
	else
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rl->n, rl->k, rl->d,
					1.0, rl->X, rl->d, rl->proj->P, rl->k, 0.0, rl->Y, rl->k);
	for (r = 0; r < rl->n; r++)
	{
		/* rows whose BLAS error bound is too wide: compensated instead */
		if (rl->compensated[r])
			jl_project_vec_compensated(rl->proj->P, rl->d, rl->k,
									   rl->X + r * (Size) rl->d,
									   rl->Y + r * (Size) rl->k);
	}
	for (r = 0; r < rl->n; r++)
	{
		TupleTableSlot *slot = rl->slots[r];
		double	   *y = rl->Y + r * (Size) rl->k;

		jl_report_status(jl_noise_on_grid(&rl->m, y, jl_strong_random()));
		ExecClearTuple(slot);
		slot->tts_values[0] = rl->ids[r];
		slot->tts_values[1] = PointerGetDatum(jl_vector_array(y, rl->k));
		slot->tts_isnull[0] = slot->tts_isnull[1] = false;
		ExecStoreVirtualTuple(slot);
	}
	/* one WAL record per page, not per row */
	table_multi_insert(rl->target, rl->slots, rl->n, GetCurrentCommandId(true),
					   0, rl->bistate);
	MemoryContextSwitchTo(old);
	MemoryContextReset(rl->batch_cxt);
	rl->nrows += rl->n;
	rl->n = 0;

	CHECK_FOR_INTERRUPTS();
	{
		instr_time	now;

		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, rl->last_report);
		if (INSTR_TIME_GET_DOUBLE(now) >= PROGRESS_SECONDS)
		{
			INSTR_TIME_SET_CURRENT(rl->last_report);
			now = rl->last_report;
			INSTR_TIME_SUBTRACT(now, rl->start);
			ereport(NOTICE,
					(errmsg("jl_release_table: %lld rows released in %.1f s",
							(long long) rl->nrows, INSTR_TIME_GET_DOUBLE(now))));
		}
	}
}

static bool
releaser_receive(TupleTableSlot *slot, DestReceiver *self)
{
	Releaser   *rl = (Releaser *) self;
	bool		isnull;
	Datum		idv,
				v;
	double	   *x;
	int			len;
	MemoryContext old;

	idv = slot_getattr(slot, 1, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("id column \"%s\" must not be NULL", rl->id_col)));
	v = slot_getattr(slot, 2, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("vector of row %lld must not be NULL", (long long) (rl->nrows + rl->n + 1)),
				 errhint("Filter NULLs out of the source, e.g. with a view.")));
	old = MemoryContextSwitchTo(rl->batch_cxt);
	x = jl_array_vector(DatumGetArrayTypeP(v), "vector", &len);
	if (rl->d < 0)
		rl->d = len;
	if (rl->proj == NULL)
		releaser_setup(rl);
	if (len != rl->d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("row %lld has %d elements, earlier rows %d",
						(long long) (rl->nrows + rl->n + 1), len, rl->d)));
	{
		double	   *row = rl->X + rl->n * (Size) rl->d;
		int			cls;

		memcpy(row, x, sizeof(double) * rl->d);
		clip_row(row, rl->d, rl->clip, rl->clip_lo, rl->clip_hi, rl->clip_c);
		cls = jl_row_class(&rl->m, row);
		if (cls & JL_ROW_CLAMP)
			jl_row_clamp(&rl->m, row);
		rl->compensated[rl->n] = (cls & JL_ROW_COMPENSATED) != 0;
	}
	rl->ids[rl->n] = datumCopy(idv, rl->id_byval, rl->id_len);
	MemoryContextSwitchTo(old);
	if (++rl->n == BATCH_ROWS)
		releaser_flush(rl);
	return true;
}

/*
 * jl_release_table(source regclass, id_column text, vector text[],
 *                  target text, k int, epsilon float8, neighbor text,
 *                  bound float8, calibration text, delta float8, key text,
 *                  dataset text, clip_lo float8, clip_hi float8,
 *                  clip_norm float8, kind text, noise text) RETURNS bigint (the
 *                  registry id)
 */
Datum
jl_release_table(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			source;
	char	   *id_col;
	ArrayType  *vec_arr;
	char	   *target_name;
	int32		k;
	JlKind		kind;
	double		epsilon,
				bound,
				delta,
				clip_lo = NAN,
				clip_hi = NAN,
				clip_c = NAN;
	JlNeighbor	neighbor;
	JlCalibration calibration;
	JlNoise		noise;
	char	   *keyname,
			   *dataset;
	ClipKind	clip = CLIP_NONE;
	bool		dataset_given;
	Oid			id_type;
	Datum	   *vec_names;
	int			nvec;
	StringInfoData sql,
				vec_desc,
				clip_desc;
	List	   *target_names;
	char	   *target_q;
	Oid			target_nsp;
	char	   *target_rel;
	Oid			target_oid;
	JlKey		key;
	JlProjection *proj;
	JlMechanism	m;
	Releaser	rl;
	SPIExecuteOptions opts;
	int64		nrows = 0;
	int64		ledger_id;
	int64		release_id;
	int			d = -1;
	int			i;

	/* ---- arguments */
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("source must not be NULL")));
	source = PG_GETARG_OID(0);
	id_col = required_text(fcinfo, 1, "id_column");
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("vector must not be NULL")));
	vec_arr = PG_GETARG_ARRAYTYPE_P(2);
	target_name = required_text(fcinfo, 3, "target");
	if (PG_ARGISNULL(4) || PG_ARGISNULL(5))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("k and epsilon must not be NULL")));
	k = PG_GETARG_INT32(4);
	jl_check_k(k);
	epsilon = PG_GETARG_FLOAT8(5);
	if (PG_ARGISNULL(6) || PG_ARGISNULL(10) || PG_ARGISNULL(NOISE_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("neighbor, key and noise must not be NULL")));
	noise = jl_parse_noise(PG_GETARG_TEXT_PP(NOISE_ARG));
	neighbor = jl_parse_neighbor(PG_GETARG_TEXT_PP(6));
	/* NULL: the noise's default calibration */
	calibration = jl_parse_calibration(PG_ARGISNULL(8) ? NULL : PG_GETARG_TEXT_PP(8), noise);
	delta = PG_ARGISNULL(9) ? NAN : PG_GETARG_FLOAT8(9);
	if (!PG_ARGISNULL(9) && isnan(delta))
		jl_report_status(JL_ERR_DELTA);
	keyname = text_to_cstring(PG_GETARG_TEXT_PP(10));
	dataset = PG_ARGISNULL(11) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(11));
	if (PG_ARGISNULL(15))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("kind must not be NULL")));
	kind = jl_parse_kind(PG_GETARG_TEXT_PP(15));

	/* clipping makes the bound true; without it the bound is assumed */
	if (!PG_ARGISNULL(12) || !PG_ARGISNULL(13))
	{
		if (PG_ARGISNULL(12) || PG_ARGISNULL(13))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("clip_lo and clip_hi go together")));
		clip_lo = PG_GETARG_FLOAT8(12);
		clip_hi = PG_GETARG_FLOAT8(13);
		if (!(isfinite(clip_lo) && isfinite(clip_hi) && clip_lo < clip_hi))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("clip_lo and clip_hi must be finite with clip_lo < clip_hi")));
		if (neighbor != JL_NEIGHBOR_ELEMENT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("element clipping (clip_lo, clip_hi) goes with neighbor 'element'"),
					 errhint("For row neighbours clip the norm with clip_norm.")));
		clip = CLIP_ELEMENT;
	}
	if (!PG_ARGISNULL(14))
	{
		if (clip != CLIP_NONE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("use either clip_lo/clip_hi or clip_norm, not both")));
		clip_c = PG_GETARG_FLOAT8(14);
		if (!(isfinite(clip_c) && clip_c > 0.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("clip_norm must be a finite number greater than 0")));
		if (neighbor != JL_NEIGHBOR_ROW)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("norm clipping (clip_norm) goes with neighbor 'row'"),
					 errhint("For element neighbours clamp with clip_lo and clip_hi.")));
		clip = CLIP_NORM;
	}
	if (clip == CLIP_ELEMENT)
		bound = clip_hi - clip_lo;
	else if (clip == CLIP_NORM)
		bound = 2.0 * clip_c;	/* replace one row by any other */
	else
		bound = 1.0;
	if (!PG_ARGISNULL(7))
	{
		double		given = PG_GETARG_FLOAT8(7);

		if (clip != CLIP_NONE && given < bound)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bound %g is smaller than the %g that the clipping implies", given, bound),
					 errhint("Leave bound out: clipping sets it.")));
		bound = given;
	}

	/* ---- the source: columns checked against the catalog, names quoted */
	if (get_rel_relkind(source) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", source)));
	column_of(source, id_col, &id_type);
	if (ARR_NDIM(vec_arr) != 1 || array_contains_nulls(vec_arr))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vector must be a non-empty list of column names")));
	deconstruct_array(vec_arr, TEXTOID, -1, false, TYPALIGN_INT, &vec_names, NULL, &nvec);
	initStringInfo(&sql);
	initStringInfo(&vec_desc);
	appendStringInfo(&sql, "SELECT %s, ", quote_identifier(id_col));
	if (nvec == 1)
	{
		char	   *c = TextDatumGetCString(vec_names[0]);
		Oid			t;

		column_of(source, c, &t);
		if (t == FLOAT8ARRAYOID)
			appendStringInfoString(&sql, quote_identifier(c));
		else if (numeric_type(t))
			appendStringInfo(&sql, "ARRAY[%s::float8]", quote_identifier(c));
		else
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" must be float8[] or numeric", c)));
		appendStringInfoString(&vec_desc, c);
	}
	else
	{
		appendStringInfoString(&sql, "ARRAY[");
		for (i = 0; i < nvec; i++)
		{
			char	   *c = TextDatumGetCString(vec_names[i]);
			Oid			t;

			column_of(source, c, &t);
			if (!numeric_type(t))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("column \"%s\" must be numeric to be a vector element", c)));
			appendStringInfo(&sql, "%s%s::float8", i ? ", " : "", quote_identifier(c));
			appendStringInfo(&vec_desc, "%s%s", i ? ", " : "", c);
		}
		appendStringInfoString(&sql, "]");
		d = nvec;
	}
	appendStringInfo(&sql, " FROM %s",
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(source)),
												get_rel_name(source)));

	/* ---- key and target name */
	jl_key_lookup(nsp, keyname, &key);
	target_names = textToQualifiedNameList(cstring_to_text(target_name));
	if (list_length(target_names) < 1 || list_length(target_names) > 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("target must be a table name, optionally schema-qualified")));
	{
		/* create in an explicit schema, then open what was created by OID */
		RangeVar   *rv = makeRangeVarFromNameList(target_names);

		target_nsp = RangeVarGetCreationNamespace(rv);
		target_rel = rv->relname;
		target_q = quote_qualified_identifier(get_namespace_name(target_nsp), target_rel);
	}

	/* ---- budget first: a refused release writes nothing */
	/*
	 * Without a dataset: the one declared for this source, else a dataset
	 * named after the source (tracked, without a cap, until one is set).
	 */
	if (dataset == NULL)
		dataset = jl_budget_dataset_for(nsp, source);
	dataset_given = (dataset != NULL);
	if (dataset == NULL)
		dataset = quote_qualified_identifier(get_namespace_name(get_rel_namespace(source)),
											 get_rel_name(source));

	/*
	 * d may be known only from the first row (an array column); calibrate
	 * after reading it, but charge the budget, which depends only on
	 * epsilon and delta, before any output exists.
	 */
	/*
	 * A Laplace release that is accepted is pure epsilon-DP: delta 0.  A
	 * Gaussian one is charged the requested delta (what holds is at most
	 * that); a missing or bad delta is refused before anything is charged.
	 */
	if (noise == JL_NOISE_GAUSSIAN)
	{
		if (isnan(delta))
			jl_report_status(JL_ERR_GAUSSIAN_DELTA_REQUIRED);
		if (!(delta > 0.0 && delta < 1.0))
			jl_report_status(JL_ERR_DELTA);
	}
	ledger_id = jl_budget_charge(nsp, dataset, dataset_given ? InvalidOid : source,
								 epsilon, noise == JL_NOISE_GAUSSIAN ? delta : 0.0,
								 psprintf("jl_release_table into %s", target_name));

	SPI_connect();
	if (SPI_execute(psprintf("CREATE TABLE %s (id %s, sketch float8[])", target_q,
							 format_type_be(id_type)), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create the target table");
	target_oid = get_relname_relid(target_rel, target_nsp);
	if (!OidIsValid(target_oid))
		elog(ERROR, "created table %s not found", target_q);

	/* stream the source's rows into batches: no materialisation */
	memset(&rl, 0, sizeof(rl));
	rl.pub.receiveSlot = releaser_receive;
	rl.pub.rStartup = releaser_startup;
	rl.pub.rShutdown = releaser_shutdown;
	rl.pub.rDestroy = releaser_destroy;
	rl.pub.mydest = DestNone;
	rl.key = &key;
	rl.kind = kind;
	rl.k = k;
	rl.d = d;
	rl.m.noise = noise;
	rl.m.epsilon = epsilon;
	rl.m.neighbor = neighbor;
	rl.m.bound = bound;
	rl.m.calibration = calibration;
	rl.m.delta = delta;
	rl.clip = clip;
	rl.clip_lo = clip_lo;
	rl.clip_hi = clip_hi;
	rl.clip_c = clip_c;
	rl.id_col = id_col;
	get_typlenbyval(id_type, &rl.id_len, &rl.id_byval);
	rl.target = table_open(target_oid, RowExclusiveLock);
	if (RelationGetDescr(rl.target)->natts != 2 ||
		TupleDescAttr(RelationGetDescr(rl.target), 1)->atttypid != FLOAT8ARRAYOID)
		elog(ERROR, "created table %s has an unexpected shape", target_q);
	rl.bistate = GetBulkInsertState();
	rl.slots = palloc(sizeof(TupleTableSlot *) * BATCH_ROWS);
	for (i = 0; i < BATCH_ROWS; i++)
		rl.slots[i] = table_slot_create(rl.target, NULL);
	rl.batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "jldp release batch",
										 ALLOCSET_DEFAULT_SIZES);
	rl.setup_cxt = CurrentMemoryContext;
	INSTR_TIME_SET_CURRENT(rl.start);
	rl.last_report = rl.start;

	memset(&opts, 0, sizeof(opts));
	opts.read_only = true;
	opts.dest = &rl.pub;
	if (SPI_execute_extended(sql.data, &opts) < 0)
		elog(ERROR, "could not read the source");
	releaser_flush(&rl);

	table_finish_bulk_insert(rl.target, 0);
	FreeBulkInsertState(rl.bistate);
	for (i = 0; i < BATCH_ROWS; i++)
		ExecDropSingleTupleTableSlot(rl.slots[i]);
	table_close(rl.target, NoLock);
	nrows = rl.nrows;
	d = rl.d;
	m = rl.m;

	if (nrows == 0)
	{
		/* nothing read: calibrate for the record with the declared columns */
		if (d < 0)
			ereport(ERROR,
					(errcode(ERRCODE_NO_DATA),
					 errmsg("source has no rows, so the vector length is unknown"),
					 errhint("Name the vector's columns, or release a non-empty table.")));
		proj = jl_projection_get(key.secret, kind, k, d);
		jl_calibrate_on(&m, proj);	/* the options, not yet calibrated */
	}

	/* ---- the registry record, written as the extension's owner */
	initStringInfo(&clip_desc);
	if (clip == CLIP_ELEMENT)
		appendStringInfo(&clip_desc, "elements clamped to [%.17g, %.17g]", clip_lo, clip_hi);
	else if (clip == CLIP_NORM)
		appendStringInfo(&clip_desc, "rows scaled to L2 norm <= %.17g", clip_c);
	else
		appendStringInfoString(&clip_desc, "none: the bound is assumed, not enforced");
	{
		StringInfoData info;
		JlOwnerScope scope;
		Oid			types[9] = {TEXTOID, OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID, INT8OID, TEXTOID};
		Datum		values[9];
		bool		isnull;

		initStringInfo(&info);
		kind = jl_kind_resolve(kind, d);
		appendStringInfo(&info, "{\"mechanism\": \"%s\", \"noise\": \"%s\", \"projection\": \"%s\"",
						 jl_noise_name(noise), jl_noise_name(noise), jl_kind_name(kind));
		json_num(&info, "density", jl_kind_density(kind));
		appendStringInfo(&info, ", \"kind\": \"%s\", \"d\": %d, \"k\": %d", jl_kind_word(kind), d, k);
		appendStringInfo(&info, ", \"neighbor\": \"%s\", \"calibration\": \"%s\"",
						 jl_neighbor_name(neighbor), jl_calibration_name(calibration));
		json_num(&info, "bound", bound);
		json_num(&info, "epsilon", epsilon);
		json_num(&info, "delta", noise == JL_NOISE_GAUSSIAN ? delta : 0.0);
		json_num(&info, "epsilon_effective", m.epsilon_effective);
		appendStringInfo(&info, ", \"sensitivity_norm\": \"%s\"",
						 noise == JL_NOISE_GAUSSIAN ? "L2" : "L1");
		json_num(&info, "sensitivity", m.sensitivity);
		json_num(&info, "projection_sensitivity", m.data_sensitivity);
		if (noise == JL_NOISE_GAUSSIAN)
		{
			json_num(&info, "delta_holding", m.delta_holding);
			json_num(&info, "sigma", m.scale);
			json_num(&info, "sigma_calibration", m.sigma_calibration);
			json_num(&info, "grid", m.grid);
			appendStringInfo(&info, ", \"sigma_in_grid_steps\": %llu", (unsigned long long) m.t);
			json_num(&info, "noise_variance", m.noise_variance);
			json_num(&info, "paper_sigma", m.paper_c);
		}
		else
		{
			json_num(&info, "scale", m.scale);
			json_num(&info, "grid", m.grid);
			appendStringInfo(&info, ", \"scale_in_grid_steps\": %llu", (unsigned long long) m.t);
			json_num(&info, "noise_variance", m.noise_variance);
			json_num(&info, "paper_c", m.paper_c);
			json_num(&info, "paper_delta", m.paper_delta);
		}
		appendStringInfo(&info, ", \"rows\": %lld}", (long long) nrows);

		values[0] = CStringGetTextDatum(quote_qualified_identifier(get_namespace_name(get_rel_namespace(source)),
																   get_rel_name(source)));
		values[1] = ObjectIdGetDatum(target_oid);
		values[2] = CStringGetTextDatum(id_col);
		values[3] = CStringGetTextDatum(vec_desc.data);
		values[4] = CStringGetTextDatum(clip_desc.data);
		values[5] = CStringGetTextDatum(key.fingerprint);
		values[6] = DirectFunctionCall1(jsonb_in, CStringGetDatum(info.data));
		values[7] = Int64GetDatum(ledger_id);
		values[8] = CStringGetTextDatum(dataset);

		jl_become_owner(nsp, &scope);
		if (SPI_execute_with_args(psprintf("INSERT INTO %s (source, target, id_column, vector, d, k, projection, "
										   "neighbor, bound, clipping, calibration, epsilon, delta, noise_variance, "
										   "grid, key_fingerprint, dataset, ledger_id, info, released_by) "
										   "SELECT $1, $2, $3, $4, (i->>'d')::int, (i->>'k')::int, i->>'kind', "
										   "i->>'neighbor', (i->>'bound')::float8, $5, i->>'calibration', "
										   "(i->>'epsilon')::float8, (i->>'delta')::float8, (i->>'noise_variance')::float8, "
										   "(i->>'grid')::float8, $6, $9, $8, i, %u FROM (SELECT $7 AS i) s RETURNING id",
										   jl_qualified(nsp, "jldp_release"), GetUserId()),
								  9, types, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
			elog(ERROR, "could not write the release registry");
		release_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		jl_restore_user(&scope);
	}
	SPI_finish();
	explicit_bzero(&key, sizeof(key));
	PG_RETURN_INT64(release_id);
}
