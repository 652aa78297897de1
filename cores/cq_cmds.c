/* The fast-dispatch command table (cq_cmds.h) as data. */
#include <stdio.h>

#include "cores/cq_cmds.h"

const struct bh_cq_field bh_cq_fields[BH_CQF_COUNT] = {
#define F(cmd, field, o, s) [BH_CQF_P_##cmd##_##field] = { BH_CQ_FMT_PREFETCH, BH_CQP_##cmd, o, s, #field },
	BH_CQ_PREFETCH_CMDS(BH_CQ_NOP_C, F)
#undef F
#define F(cmd, field, o, s) [BH_CQF_D_##cmd##_##field] = { BH_CQ_FMT_DISPATCH, BH_CQD_##cmd, o, s, #field },
	BH_CQ_DISPATCH_CMDS(BH_CQ_NOP_C, F)
#undef F
#define F(cmd, field, o, s) [BH_CQF_S_##cmd##_##field] = { BH_CQ_FMT_SUB, BH_CQS_##cmd, o, s, #field },
	BH_CQ_SUB_CMDS(BH_CQ_NOP_C, F)
#undef F
};

const struct bh_cq_cmd bh_cq_prefetch_cmds[BH_CQP_COUNT] = {
#define C(name, id, size) [id] = { #name, size },
	BH_CQ_PREFETCH_CMDS(C, BH_CQ_NOP_F)
#undef C
};

const struct bh_cq_cmd bh_cq_dispatch_cmds[BH_CQD_COUNT] = {
#define C(name, id, size) [id] = { #name, size },
	BH_CQ_DISPATCH_CMDS(C, BH_CQ_NOP_F)
#undef C
};

const struct bh_cq_cmd bh_cq_sub_cmds[BH_CQS_COUNT] = {
#define C(name, id, size) [id] = { #name, size },
	BH_CQ_SUB_CMDS(C, BH_CQ_NOP_F)
#undef C
};

const struct bh_cq_cmd *bh_cq_cmd_find(enum bh_cq_fmt fmt, unsigned id)
{
	static const struct {
		const struct bh_cq_cmd *t;
		unsigned n;
	} tabs[BH_CQ_FMTS] = {
		{ bh_cq_prefetch_cmds, BH_CQP_COUNT }, { bh_cq_dispatch_cmds, BH_CQD_COUNT }, { bh_cq_sub_cmds, BH_CQS_COUNT },
	};
	if ((unsigned)fmt >= BH_CQ_FMTS || id >= tabs[fmt].n || !tabs[fmt].t[id].name)
		return NULL;
	return &tabs[fmt].t[id];
}

const char *bh_cq_format(enum bh_cq_fmt fmt, unsigned id, const uint8_t *hdr, char *buf, size_t n)
{
	const struct bh_cq_cmd *c = bh_cq_cmd_find(fmt, id);
	if (!c) {
		snprintf(buf, n, "unknown command id %u", id);
		return buf;
	}
	size_t len = (size_t)snprintf(buf, n, "%s", c->name);
	for (unsigned f = 0; f < BH_CQF_COUNT && len < n; f++)
		if (bh_cq_fields[f].fmt == fmt && bh_cq_fields[f].cmd == id)
			len += (size_t)snprintf(buf + len, n - len, " %s=0x%llx", bh_cq_fields[f].name,
						(unsigned long long)bh_cq_get(hdr, (enum bh_cq_field_id)f));
	return buf;
}
