/*
 * rows.c - what every mechanism of the pipeline shares: the query of the
 * protected table's rows as the one reader gives them, the part's bounds
 * as the registry records them, and the sentence every guarantee ends
 * with.
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/json.h"

#include "pg/pipeline/pipeline.h"

char *
jl_pipeline_rows_sql(const JlPipeline *pl)
{
	return jl_declaration_row_sql(pl->nsp, &pl->decl);
}

void
jl_pipeline_not_protected(StringInfo b, const JlPipeline *pl)
{
	appendStringInfo(b, "; charged to dataset %s. Not protected: which units exist and how many (%lld, each read once%s), released as they are.",
					 pl->decl.dataset, (long long) pl->nrows,
					 pl->part ? ", only those within this shard's partition bounds" : "");
}

char *
jl_pipeline_part_json(const JlPipeline *pl)
{
	StringInfoData b;

	if (!pl->part)
		return NULL;
	initStringInfo(&b);
	appendStringInfoString(&b, "\"part\": {\"lower\": ");
	if (pl->part_lower)
		escape_json(&b, pl->part_lower);
	else
		appendStringInfoString(&b, "null");
	appendStringInfoString(&b, ", \"upper\": ");
	if (pl->part_upper)
		escape_json(&b, pl->part_upper);
	else
		appendStringInfoString(&b, "null");
	appendStringInfoString(&b, ", \"in\": ");
	if (pl->part_nmembers < 0)
		appendStringInfoString(&b, "null");
	else
	{
		appendStringInfoChar(&b, '[');
		for (int i = 0; i < pl->part_nmembers; i++)
		{
			if (i)
				appendStringInfoString(&b, ", ");
			escape_json(&b, pl->part_members[i]);
		}
		appendStringInfoChar(&b, ']');
	}
	appendStringInfoChar(&b, '}');
	return b.data;
}
