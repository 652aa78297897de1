/* The detectors' shared mechanism (fabric/check.h) and the table of checks. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/chip.h"
#include "fabric/check.h"
#include "fabric/wallclock.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "sync/streams.h"

/* Every check: name (what --check takes) and what it catches, in enum bh_check order. */
static const struct {
	const char *name, *what;
} check_table[BH_CHECK_COUNT] = {
	[BH_CHECK_SEM_REINIT] = { "sem-reinit",
				  "SEMINIT of a Tensix semaphore that another thread waits on (SEMWAIT) or whose value is not 0" },
	[BH_CHECK_SEM_OVERFLOW] = { "sem-overflow", "SEMPOST of a Tensix semaphore already at its max" },
	[BH_CHECK_SEM_UNDERFLOW] = { "sem-underflow", "SEMGET of a Tensix semaphore at 0" },
	[BH_CHECK_MOPCFG_BUSY] = { "mopcfg-busy",
				   "store to MOP_CFG while the thread's MOP expander holds or expands a MOP" },
	[BH_CHECK_LOST_TARGET] = { "lost-target",
				   "a parked ==/!= poll loop whose counter moved past the value it waits for" },
	[BH_CHECK_NOC_BUSY_REPROGRAM] = { "noc-busy-reprogram",
					  "write to a NoC command buffer's registers while its CMD_CTRL is busy" },
	[BH_CHECK_NOC_SHARED_INITIATOR] = { "noc-shared-initiator",
					    "one NoC command buffer programmed by two cores within one transaction" },
	[BH_CHECK_NOC_TRID_OVERFLOW] = { "noc-trid-overflow",
					 "a NoC transaction-id counter (8 bits) pushed past 255 outstanding" },
	[BH_CHECK_NOC_INFLIGHT] = { "noc-inflight",
				    "a store (or a NoC request) into a range an in-flight NoC transaction reads or lands in" },
	[BH_CHECK_NOC_INFLIGHT_LOAD] = { "noc-inflight-load",
					 "a load from a range an in-flight NoC transaction has not landed in yet" },
	[BH_CHECK_CODE_WRITTEN] = { "code-written",
				    "a core fetches bytes written after it executed them, with no I-cache invalidate between" },
	[BH_CHECK_ATOMIC_INTO_CODE] = { "atomic-into-code",
					"an atomic (NoC or AMO) into bytes a running core executed since its last I-cache invalidate" },
	[BH_CHECK_LDM_ZEROING] = { "ldm-zeroing",
				   "another agent accesses a core's local RAM within 2048 cycles of its release from reset" },
	[BH_CHECK_LAUNCH_SLOT_BUSY] = { "launch-slot-busy",
					"a host or NoC write into a launch message slot that BRISC has not finished with" },
	[BH_CHECK_CFG_HAZARD] = { "cfg-hazard",
				  "a Tensix instruction reading config the WRCFG just before it wrote, or a GPR an RDCFG "
				  "has not yet written (no STALLWAIT C12 between)" },
	[BH_CHECK_TTSYNC_LOAD] = { "ttsync-load",
				   "a TRISC load from the PCBuf or mailbox range while its TTSync load (+4/+8) may still be "
				   "outstanding (result unused, fewer than 7 instructions since)" },
	[BH_CHECK_BRISC_PUSH] = { "brisc-push",
				  "a BRISC push into Tensix thread i while TRISC i runs (a same-cycle TRISC push would be "
				  "lost: design notes, unverified on silicon)" },
	[BH_CHECK_POLL_NO_FENCE] = { "poll-no-fence",
				     "a core parked in a poll loop on L1 with its L0 data cache on and no fence in the loop "
				     "(on silicon it may spin on a stale cached value)" },
	[BH_CHECK_CB_POP_UNWAITED] = { "cb-pop-unwaited",
				       "a CB pop (tiles_acked) of pages the popping core never saw published (no cb_wait_front)" },
	[BH_CHECK_CB_OWNERSHIP] = { "cb-ownership",
				    "a CB page written while the consumer holds it, or read (load, NoC write source, UNPACR) "
				    "by the consumer while it holds no published page" },
	[BH_CHECK_NOC_MCAST_ORDER] = { "noc-mcast-order",
				       "a multicast whose corners are in the other NoC's order: it wraps around the grid" },
	[BH_CHECK_CQ_RECORD_CHANGED] = { "cq-record-changed",
					 "an issue-ring record rewritten after prefetch_q announced it, before the fetch" },
	[BH_CHECK_CQ_SLOT_OVERWRITTEN] = { "cq-slot-overwritten",
					   "a prefetch_q slot written while non-zero (its record not yet fetched)" },
	[BH_CHECK_CQ_COMPLETION_RD] = { "cq-completion-rd",
					"the host's completion-ring read pointer passed the dispatcher's write pointer" },
	[BH_CHECK_SFPU_ERRATUM] = { "sfpu-erratum",
				    "an SFPU instruction that meets a documented hardware erratum (TEN-2932: a result "
				    "written to LReg 4-7 while LaneConfig.ENABLE_DEST_INDEX is set; SFP_STOCH_RND rounding "
				    "toward zero rounding away)" },
	[BH_CHECK_CB_RESET_WINDOW] = { "cb-reset-window",
				       "a core other than TRISC0 writes a CB counter, or reads one not yet zeroed, while "
				       "TRISC0 resets them (subordinate_sync.trisc0 = 3, before its DONE), or a launch "
				       "starts kernels on counters not reset since a run" },
	[BH_CHECK_CB_PUBLISH_EARLY] = { "cb-publish-early",
					"a TRISC publishes a CB push (pop) while a PACR (UNPACR) before it may still be "
					"writing (reading) the page: no STALLWAIT on that unit before its STOREREG, or no "
					"TTSync before its own store" },
};

int bh_check_parse(const char *name)
{
	for (unsigned k = 0; name && k < BH_CHECK_COUNT; k++)
		if (!strcmp(name, check_table[k].name))
			return (int)k;
	return -1;
}

int bh_check_list_parse(const char *list, uint32_t *mask, char *err, size_t errlen)
{
	char buf[512];
	size_t len = list ? strlen(list) : 0;
	if (len == 0 || len >= sizeof buf || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,")) {
		snprintf(err, errlen, "needs a comma-separated list of checks, not '%s'", list ? list : "");
		return BH_ERR_ARG;
	}
	memcpy(buf, list, len + 1);
	uint32_t set = list[0] == '-' ? BH_CHECKS_DEFAULT : 0;
	char *save = NULL;
	for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		bool remove = item[0] == '-';
		const char *name = item + remove;
		uint32_t bits;
		if (!strcmp(name, "all"))
			bits = BH_CHECKS_ALL;
		else if (!strcmp(name, "default"))
			bits = BH_CHECKS_DEFAULT;
		else if (!strcmp(name, "none") && !remove)
			bits = BH_CHECKS_ALL, remove = true;
		else if (bh_check_parse(name) >= 0)
			bits = BH_CHECK_BIT(bh_check_parse(name));
		else {
			snprintf(err, errlen, "has no check '%s' in '%s' (--list-checks lists them)", item, list);
			return BH_ERR_ARG;
		}
		set = remove ? set & ~bits : set | bits;
	}
	*mask = BH_CHECKS_EXACT | set;
	return 0;
}

const char *bh_check_name(enum bh_check check)
{
	return (unsigned)check < BH_CHECK_COUNT ? check_table[check].name : NULL;
}

const char *bh_check_description(enum bh_check check)
{
	return (unsigned)check < BH_CHECK_COUNT ? check_table[check].what : NULL;
}

void bh_checks_init(struct bh_checks *ch, uint32_t checks, enum bh_check_mode mode)
{
	memset(ch, 0, sizeof *ch);
	ch->enabled = (checks == 0 ? BH_CHECKS_DEFAULT : checks) & BH_CHECKS_ALL;
	ch->log_only = mode == BH_CHECK_LOG;
	pthread_mutex_init(&ch->lock, NULL);
}

void bh_checks_destroy(struct bh_checks *ch)
{
	pthread_mutex_destroy(&ch->lock);
	free(ch->log);
	ch->log = NULL;
}

void bh_check_fill(struct bh_fault *f, enum bh_check id, uint32_t addr, const char *region, const char *other,
		   const char *fmt, ...)
{
	va_list ap;
	memset(f, 0, sizeof *f);
	f->kind = BH_FAULT_CHECK;
	f->check = (uint8_t)id;
	f->addr = addr;
	snprintf(f->region, sizeof f->region, "%s", region ? region : "");
	snprintf(f->other, sizeof f->other, "%s", other ? other : "");
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof f->detail, fmt, ap);
	va_end(ap);
}

bool bh_check_found(struct bh_checks *ch, unsigned tile, unsigned core, const struct bh_fault *f)
{
	pthread_mutex_lock(&ch->lock);
	bool seen = false;
	unsigned kept = ch->count < ch->cap ? ch->count : ch->cap;
	for (unsigned k = 0; ch->log_only && k < kept && !seen; k++) {
		const struct bh_finding *o = &ch->log[k];
		seen = o->fault.check == f->check && o->fault.pc == f->pc && o->tile == tile && o->core == core;
	}
	if (!seen) {
		if (ch->count == ch->cap && ch->cap < BH_FINDINGS_KEPT) {
			unsigned cap = ch->cap ? ch->cap * 2 : 8;
			struct bh_finding *log = realloc(ch->log, cap * sizeof *log);
			if (log) {
				ch->log = log;
				ch->cap = cap;
			}
		}
		if (ch->count < ch->cap)
			ch->log[ch->count] = (struct bh_finding){ .tile = tile, .core = core, .time_ns = bh_time_ns(),
								  .fault = *f };
		ch->count++;
	}
	pthread_mutex_unlock(&ch->lock);
	return !ch->log_only;
}

bool bh_check_access(struct bh_access *a, enum bh_check id, const char *other, const char *fmt, ...)
{
	struct bh_tile *t = a->tile;
	struct bh_fault f;
	char why[sizeof f.detail];
	va_list ap;
	if (a->who >= BH_CORES_PER_TILE)
		return true;   /* the host's accesses: no core to blame */
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	bh_check_fill(&f, id, a->addr, a->region ? a->region->name : NULL, other, "%s", why);
	/* The core set its fault record's pc to the accessing instruction before the access
	 * (cores/core.c, bh_mem_*_slow). */
	f.pc = a->fault->pc;
	f.insn = f.pc < BH_L1_SIZE && !(f.pc & 3) ? bh_mem_ld(t->l1 + f.pc, 4) : 0;
	f.has_addr = true;
	f.is_store = true;
	f.size = a->size;
	if (!bh_check_found(&t->chip->checks, t->index, a->who, &f))
		return true;
	*a->fault = f;
	return false;
}

bool bh_check_l1_load(struct bh_tile *t, unsigned who, uint32_t addr, unsigned size, uint32_t pc, struct bh_fault *f)
{
	if (!bh_inflight_load(t, who, addr, size, pc, f))
		return false;
	struct bh_fault g;
	if (!bh_stream_cb_read_check(t, who, addr, size, pc, false, &g))
		return true;
	if (!bh_check_found(&t->chip->checks, t->index, who, &g))
		return true;   /* logged: the core goes on */
	*f = g;
	return false;
}

unsigned bh_checks_copy(struct bh_checks *ch, struct bh_finding **out, unsigned *kept)
{
	pthread_mutex_lock(&ch->lock);
	unsigned n = ch->count, k = n < ch->cap ? n : ch->cap;
	*out = k ? malloc(k * sizeof **out) : NULL;
	if (*out)
		memcpy(*out, ch->log, k * sizeof **out);
	*kept = *out ? k : 0;
	pthread_mutex_unlock(&ch->lock);
	return n;
}
