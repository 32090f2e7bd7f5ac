/* perf.data reader (file mode, little endian): header, attributes and their
 * ids, EVENT_DESC, MMAP/MMAP2, COMM, FORK/EXIT and SAMPLE with branch stacks.
 * Every read is bounds-checked: this parser is fed hostile and fuzzed files. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hbbp/hbbp_impl.h"
#include "util/abi.h"
#include "util/internal.h"

#define MAX_ATTRS 4096
#define MAX_IDS (1u << 24)

struct pmcf_perfdata {
	pmcf_pd_attr *attrs;
	uint64_t **ids;
	char **names;
	size_t nattrs;
	pmcf_pd_sample *samples;
	size_t nsamples, capsamples;
	pmcf_pd_branch *br;
	size_t nbr, capbr;
	size_t *br_off; /* per sample, index into br (pointers are fixed up at the end) */
	size_t capbroff;
	uint64_t *rg; /* user register values of all samples */
	size_t nrg, caprg;
	size_t *rg_off; /* per sample, index into rg */
	size_t caprgoff;
	pmcf_pd_mmap *mmaps;
	size_t nmmaps, capmmaps;
	pmcf_pd_comm *comms;
	size_t ncomms, capcomms;
	pmcf_pd_task *tasks;
	size_t ntasks, captasks;
	pmcf_pd_stats st;
	struct idmap {
		uint64_t id;
		uint32_t attr;
	} * idmap;
	size_t nidmap;
	char cpuid[128]; /* HEADER_CPUID, or "" */
};

/* A bounded cursor: reads past the end set bad and return zero. */
struct cur {
	const uint8_t *p;
	size_t n, off;
	int bad;
};

static int avail(const struct cur *c, size_t k) { return !c->bad && c->off <= c->n && c->n - c->off >= k; }

static uint64_t rd64(struct cur *c)
{
	uint64_t v = 0;
	if (!avail(c, 8)) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p + c->off, 8);
	c->off += 8;
	return v;
}

static uint32_t rd32(struct cur *c)
{
	uint32_t v = 0;
	if (!avail(c, 4)) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p + c->off, 4);
	c->off += 4;
	return v;
}

static void skip(struct cur *c, uint64_t k)
{
	if (!avail(c, 0) || k > c->n - c->off) {
		c->bad = 1;
		return;
	}
	c->off += (size_t)k;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (pmcfi_grow(p, cap, need, elem))
		return pmcfi_fail(PMCF_ENOMEM, "perf.data: out of memory");
	return 0;
}

/* A string of at most max bytes, NUL-terminated or not. */
static char *dupstr(const uint8_t *s, size_t max)
{
	size_t k = 0;
	while (k < max && s[k])
		k++;
	char *r = malloc(k + 1);
	if (r) {
		memcpy(r, s, k);
		r[k] = 0;
	}
	return r;
}

static int corrupt(const char *what) { return pmcfi_fail(PMCF_ECORRUPT, "perf.data: %s", what); }

/* perf_event_attr fields at their ABI offsets; bytes beyond avail read as 0. */
static uint64_t attr_u64(const uint8_t *a, size_t n, size_t off)
{
	uint64_t v = 0;
	if (off + 8 <= n)
		memcpy(&v, a + off, 8);
	return v;
}

static void parse_attr(const uint8_t *a, size_t n, pmcf_pd_attr *at)
{
	uint32_t type = 0;
	if (n >= 4)
		memcpy(&type, a, 4);
	at->type = type;
	at->config = attr_u64(a, n, 8);
	at->sample_period = attr_u64(a, n, 16);
	at->sample_type = attr_u64(a, n, 24);
	at->read_format = attr_u64(a, n, 32);
	uint64_t fl = attr_u64(a, n, 40);
	at->exclude_user = (fl >> 4) & 1;
	at->exclude_kernel = (fl >> 5) & 1;
	at->freq = (fl >> 10) & 1;
	at->precise_ip = (fl >> 15) & 3;
	at->sample_id_all = (fl >> 18) & 1;
	at->branch_sample_type = attr_u64(a, n, 72);
	at->sample_regs_user = attr_u64(a, n, 80);
	at->name = "";
}

static int id_cmp(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static uint32_t attr_of_id(const pmcf_perfdata *pd, uint64_t id)
{
	size_t lo = 0, hi = pd->nidmap;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pd->idmap[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pd->nidmap && pd->idmap[lo].id == id ? pd->idmap[lo].attr : PMCF_PD_NOATTR;
}

static int build_idmap(pmcf_perfdata *pd)
{
	size_t n = 0;
	for (size_t i = 0; i < pd->nattrs; i++)
		n += pd->attrs[i].nids;
	pd->idmap = calloc(n ? n : 1, sizeof(*pd->idmap));
	if (!pd->idmap)
		return pmcfi_fail(PMCF_ENOMEM, "perf.data: out of memory");
	for (size_t i = 0; i < pd->nattrs; i++)
		for (size_t k = 0; k < pd->attrs[i].nids; k++)
			pd->idmap[pd->nidmap++] = (struct idmap){pd->attrs[i].ids[k], (uint32_t)i};
	qsort(pd->idmap, pd->nidmap, sizeof(*pd->idmap), id_cmp);
	return 0;
}

/* HEADER_EVENT_DESC (feature 12): names of the attributes, matched by id. */
static int parse_event_desc(pmcf_perfdata *pd, struct cur *c)
{
	uint32_t nre = rd32(c), sz = rd32(c);
	if (c->bad || sz < 64 || sz > 4096 || nre > MAX_ATTRS)
		return corrupt("bad EVENT_DESC header");
	for (uint32_t e = 0; e < nre; e++) {
		skip(c, sz);
		uint32_t nids = rd32(c);
		uint32_t len = rd32(c);
		if (c->bad || !avail(c, len))
			return corrupt("truncated EVENT_DESC");
		const uint8_t *s = c->p + c->off;
		skip(c, len);
		if (nids > (c->n - c->off) / 8)
			return corrupt("truncated EVENT_DESC ids");
		uint32_t a = PMCF_PD_NOATTR;
		for (uint32_t k = 0; k < nids; k++) {
			uint64_t id = rd64(c);
			if (a == PMCF_PD_NOATTR)
				a = attr_of_id(pd, id);
		}
		if (a == PMCF_PD_NOATTR && nids == 0 && e < pd->nattrs)
			a = e;
		if (a != PMCF_PD_NOATTR && !pd->names[a]) {
			pd->names[a] = dupstr(s, len);
			if (!pd->names[a])
				return pmcfi_fail(PMCF_ENOMEM, "perf.data: out of memory");
			pd->attrs[a].name = pd->names[a];
		}
	}
	return 0;
}

static uint64_t popcount64(uint64_t v) { return (uint64_t)__builtin_popcountll(v); }

/* Size of a READ value in a sample for read_format rf, after reading nr. */
static void skip_read(struct cur *c, uint64_t rf)
{
	uint64_t per = 8 + ((rf & (1u << 2)) ? 8 : 0) + ((rf & (1u << 4)) ? 8 : 0);
	uint64_t times = ((rf & 1) ? 8 : 0) + ((rf & 2) ? 8 : 0);
	if (rf & (1u << 3)) { /* PERF_FORMAT_GROUP */
		uint64_t nr = rd64(c);
		if (c->bad || nr > (c->n - c->off) / per) {
			c->bad = 1;
			return;
		}
		skip(c, times + nr * per);
	} else {
		skip(c, per + times);
	}
}

enum {
	S_IP = 1u << 0,
	S_TID = 1u << 1,
	S_TIME = 1u << 2,
	S_ADDR = 1u << 3,
	S_READ = 1u << 4,
	S_CALLCHAIN = 1u << 5,
	S_ID = 1u << 6,
	S_CPU = 1u << 7,
	S_PERIOD = 1u << 8,
	S_STREAM_ID = 1u << 9,
	S_RAW = 1u << 10,
	S_BRANCH_STACK = 1u << 11,
	S_REGS_USER = 1u << 12,
	S_IDENTIFIER = 1u << 16
};
#define BR_HW_INDEX (1ull << 17)

static int parse_sample(pmcf_perfdata *pd, struct cur *c, uint16_t misc)
{
	uint32_t a = 0;
	if (pd->nattrs == 0)
		return 0;
	if (pd->nattrs > 1) {
		/* id position from the first attribute (perf requires one layout) */
		uint64_t st0 = pd->attrs[0].sample_type;
		struct cur t = *c;
		if (st0 & S_IDENTIFIER) {
			a = attr_of_id(pd, rd64(&t));
		} else if (st0 & S_ID) {
			skip(&t, 8 * popcount64(st0 & (S_IP | S_TID | S_TIME | S_ADDR)));
			a = attr_of_id(pd, rd64(&t));
		} else {
			a = PMCF_PD_NOATTR;
		}
		if (t.bad)
			return corrupt("truncated sample");
	}
	uint64_t st = pd->attrs[a == PMCF_PD_NOATTR ? 0 : a].sample_type;
	pmcf_pd_sample s = {.size = sizeof(pmcf_pd_sample), .attr = a, .misc = misc};
	if (st & S_IDENTIFIER)
		s.id = rd64(c);
	if (st & S_IP)
		s.ip = rd64(c);
	if (st & S_TID) {
		s.pid = rd32(c);
		s.tid = rd32(c);
	}
	if (st & S_TIME)
		s.time = rd64(c);
	if (st & S_ADDR)
		rd64(c);
	if (st & S_ID)
		s.id = rd64(c);
	if (st & S_STREAM_ID)
		rd64(c);
	if (st & S_CPU)
		rd64(c);
	if (st & S_PERIOD)
		s.period = rd64(c);
	if (st & S_READ)
		skip_read(c, pd->attrs[a == PMCF_PD_NOATTR ? 0 : a].read_format);
	if (st & S_CALLCHAIN) {
		uint64_t nr = rd64(c);
		if (c->bad || nr > (c->n - c->off) / 8)
			return corrupt("truncated callchain");
		skip(c, nr * 8);
	}
	if (st & S_RAW) {
		uint32_t sz = rd32(c);
		skip(c, sz);
	}
	size_t boff = pd->nbr;
	if (st & S_BRANCH_STACK) {
		uint64_t nr = rd64(c);
		uint64_t bst = pd->attrs[a == PMCF_PD_NOATTR ? 0 : a].branch_sample_type;
		if (bst & BR_HW_INDEX) {
			s.has_hw_idx = 1;
			s.hw_idx = rd64(c);
		}
		if (c->bad || nr > (c->n - c->off) / 24)
			return corrupt("truncated branch stack");
		int rc = grow((void **)&pd->br, &pd->capbr, pd->nbr + nr, sizeof(*pd->br));
		if (rc)
			return rc;
		for (uint64_t k = 0; k < nr; k++) {
			pmcf_pd_branch b = PMCF_PD_BRANCH_INIT;
			b.from = rd64(c);
			b.to = rd64(c);
			b.flags = rd64(c);
			pd->br[pd->nbr++] = b;
		}
		s.nbranches = nr;
	}
	size_t roff = pd->nrg;
	if (st & S_REGS_USER) {
		/* the abi word, then one u64 per mask bit unless the abi is NONE */
		s.regs_abi = rd64(c);
		if (s.regs_abi) {
			s.regs_mask = pd->attrs[a == PMCF_PD_NOATTR ? 0 : a].sample_regs_user;
			uint64_t nr = popcount64(s.regs_mask);
			if (c->bad || nr > (c->n - c->off) / 8)
				return corrupt("truncated user registers");
			int rc = grow((void **)&pd->rg, &pd->caprg, pd->nrg + nr, sizeof(*pd->rg));
			if (rc)
				return rc;
			for (uint64_t k = 0; k < nr; k++)
				pd->rg[pd->nrg++] = rd64(c);
			s.nregs = (uint32_t)nr;
		}
	}
	if (c->bad)
		return corrupt("truncated sample");
	int rc = grow((void **)&pd->samples, &pd->capsamples, pd->nsamples + 1, sizeof(*pd->samples));
	if (!rc)
		rc = grow((void **)&pd->br_off, &pd->capbroff, pd->nsamples + 1, sizeof(*pd->br_off));
	if (!rc)
		rc = grow((void **)&pd->rg_off, &pd->caprgoff, pd->nsamples + 1, sizeof(*pd->rg_off));
	if (rc)
		return rc;
	pd->samples[pd->nsamples] = s;
	pd->rg_off[pd->nsamples] = roff;
	pd->br_off[pd->nsamples++] = boff;
	pd->st.samples++;
	return 0;
}

static int parse_record(pmcf_perfdata *pd, uint32_t type, uint16_t misc, struct cur *c)
{
	int rc = 0;
	switch (type) {
	case 1:    /* PERF_RECORD_MMAP */
	case 10: { /* PERF_RECORD_MMAP2 */
		pmcf_pd_mmap m = {.size = sizeof(pmcf_pd_mmap), .misc = misc, .is_mmap2 = type == 10};
		m.pid = rd32(c);
		m.tid = rd32(c);
		m.addr = rd64(c);
		m.len = rd64(c);
		m.pgoff = rd64(c);
		if (type == 10)
			skip(c, 24 + 8); /* maj,min,ino,ino_generation or build id; prot, flags */
		if (c->bad)
			return corrupt("truncated MMAP record");
		rc = grow((void **)&pd->mmaps, &pd->capmmaps, pd->nmmaps + 1, sizeof(*pd->mmaps));
		if (rc)
			return rc;
		char *fn = dupstr(c->p + c->off, c->n - c->off);
		if (!fn)
			return pmcfi_fail(PMCF_ENOMEM, "perf.data: out of memory");
		m.filename = fn;
		pd->mmaps[pd->nmmaps++] = m;
		pd->st.mmaps++;
		break;
	}
	case 3: { /* PERF_RECORD_COMM */
		pmcf_pd_comm cm = {.size = sizeof(pmcf_pd_comm), .exec = (misc >> 13) & 1};
		cm.pid = rd32(c);
		cm.tid = rd32(c);
		if (c->bad)
			return corrupt("truncated COMM record");
		rc = grow((void **)&pd->comms, &pd->capcomms, pd->ncomms + 1, sizeof(*pd->comms));
		if (rc)
			return rc;
		char *s = dupstr(c->p + c->off, c->n - c->off);
		if (!s)
			return pmcfi_fail(PMCF_ENOMEM, "perf.data: out of memory");
		cm.comm = s;
		pd->comms[pd->ncomms++] = cm;
		pd->st.comms++;
		break;
	}
	case 4:   /* PERF_RECORD_EXIT */
	case 7: { /* PERF_RECORD_FORK */
		pmcf_pd_task t = {.size = sizeof(pmcf_pd_task), .exit = type == 4};
		t.pid = rd32(c);
		t.ppid = rd32(c);
		t.tid = rd32(c);
		t.ptid = rd32(c);
		t.time = rd64(c);
		if (c->bad)
			return corrupt("truncated FORK/EXIT record");
		rc = grow((void **)&pd->tasks, &pd->captasks, pd->ntasks + 1, sizeof(*pd->tasks));
		if (rc)
			return rc;
		pd->tasks[pd->ntasks++] = t;
		pd->st.tasks++;
		break;
	}
	case 2: /* PERF_RECORD_LOST */
		rd64(c);
		pd->st.lost += rd64(c);
		break;
	case 9: /* PERF_RECORD_SAMPLE */ return parse_sample(pd, c, misc);
	case 81: /* PERF_RECORD_COMPRESSED */
		return pmcfi_fail(PMCF_ENOTSUP, "perf.data: compressed records (perf record -z) "
						"are not supported; record without -z");
	default: pd->st.skipped++;
	}
	return 0;
}

/* The bounds of feature `bit`'s section (the table after the data section
 * has one {offset, size} per set bit); c->p is NULL when the table does not fit. */
static int feature_section(const uint8_t *p, size_t n, uint64_t table, uint64_t feat0, int bit, struct cur *c)
{
	uint64_t idx = popcount64(feat0 & ((1ull << bit) - 1));
	struct cur fc = {p, n, 0, 0};
	*c = (struct cur){NULL, 0, 0, 0};
	uint64_t soff = table + idx * 16;
	if (soff > n)
		return 0;
	fc.off = soff;
	uint64_t off = rd64(&fc), sz = rd64(&fc);
	if (fc.bad || off > n || sz > n - off)
		return corrupt(bit == 12 ? "EVENT_DESC out of bounds" : "CPUID out of bounds");
	*c = (struct cur){p + off, sz, 0, 0};
	return 0;
}

static int parse(pmcf_perfdata *pd, const uint8_t *p, size_t n)
{
	struct cur h = {p, n, 0, 0};
	if (n < 8 || memcmp(p, "PERFILE2", 8) != 0) {
		if (n >= 8 && memcmp(p, "2ELIFREP", 8) == 0)
			return pmcfi_fail(PMCF_ENOTSUP, "perf.data: big-endian files are not supported");
		if (n >= 8 && memcmp(p, "PERFFILE", 8) == 0)
			return pmcfi_fail(PMCF_EVERSION, "perf.data: version 1 files are not supported");
		return pmcfi_fail(PMCF_ENOTOURS, "not a perf.data file (bad magic)");
	}
	skip(&h, 8);
	uint64_t hsize = rd64(&h), attr_size = rd64(&h);
	uint64_t aoff = rd64(&h), asz = rd64(&h);
	uint64_t doff = rd64(&h), dsz = rd64(&h);
	rd64(&h);
	rd64(&h);
	uint64_t feat[4];
	for (int i = 0; i < 4; i++)
		feat[i] = rd64(&h);
	if (h.bad || hsize < 104 || hsize > n)
		return corrupt("truncated header (pipe-mode files are not supported)");
	if (attr_size < 16 + 64 || attr_size > 4096 + 16)
		return corrupt("bad attribute size");
	if (aoff > n || asz > n - aoff || asz % attr_size)
		return corrupt("attribute section out of bounds");
	if (doff > n || dsz > n - doff)
		return corrupt("data section out of bounds");
	pd->nattrs = asz / attr_size;
	if (pd->nattrs > MAX_ATTRS)
		return corrupt("too many attributes");
	pd->attrs = calloc(pd->nattrs + 1, sizeof(*pd->attrs));
	pd->ids = calloc(pd->nattrs + 1, sizeof(*pd->ids));
	pd->names = calloc(pd->nattrs + 1, sizeof(*pd->names));
	if (!pd->attrs || !pd->ids || !pd->names)
		return pmcfi_fail(PMCF_ENOMEM, "perf.data: out of memory");
	for (size_t i = 0; i < pd->nattrs; i++) {
		const uint8_t *a = p + aoff + i * attr_size;
		size_t an = (size_t)attr_size - 16;
		uint32_t asize;
		memcpy(&asize, a + 4, 4);
		if (asize && asize < an)
			an = asize;
		pd->attrs[i].size = sizeof(pd->attrs[i]);
		parse_attr(a, an, &pd->attrs[i]);
		struct cur ic = {p, n, aoff + i * attr_size + attr_size - 16, 0};
		uint64_t ioff = rd64(&ic), isz = rd64(&ic);
		if (ic.bad || ioff > n || isz > n - ioff || isz % 8 || isz / 8 > MAX_IDS)
			return corrupt("attribute ids out of bounds");
		pd->attrs[i].nids = isz / 8;
		pd->ids[i] = malloc(isz ? isz : 1);
		if (!pd->ids[i])
			return pmcfi_fail(PMCF_ENOMEM, "perf.data: out of memory");
		memcpy(pd->ids[i], p + ioff, isz);
		pd->attrs[i].ids = pd->ids[i];
	}
	int rc = build_idmap(pd);
	if (rc)
		return rc;
	/* feature sections follow the data section, in the order of their bits */
	if (feat[0] & (1ull << 12)) {
		struct cur ec;
		if ((rc = feature_section(p, n, doff + dsz, feat[0], 12, &ec)))
			return rc;
		if (ec.p && (rc = parse_event_desc(pd, &ec)))
			return rc;
	}
	if (feat[0] & (1ull << 9)) { /* HEADER_CPUID: "GenuineIntel,6,85,4" on x86 */
		struct cur cc;
		if ((rc = feature_section(p, n, doff + dsz, feat[0], 9, &cc)))
			return rc;
		uint32_t len = cc.p ? rd32(&cc) : 0;
		if (cc.p && !cc.bad && avail(&cc, len)) {
			size_t l = strnlen((const char *)cc.p + cc.off, len);
			if (l >= sizeof(pd->cpuid))
				l = sizeof(pd->cpuid) - 1;
			memcpy(pd->cpuid, cc.p + cc.off, l);
			pd->cpuid[l] = 0;
		}
	}
	/* records */
	size_t off = doff, end = doff + dsz;
	while (off < end) {
		if (end - off < 8)
			return corrupt("truncated record header");
		uint32_t type;
		uint16_t misc, size;
		memcpy(&type, p + off, 4);
		memcpy(&misc, p + off + 4, 2);
		memcpy(&size, p + off + 6, 2);
		if (size < 8 || size > end - off)
			return corrupt("record size out of bounds");
		struct cur rcur = {p + off + 8, (size_t)size - 8, 0, 0};
		rc = parse_record(pd, type, misc, &rcur);
		if (rc)
			return rc;
		pd->st.records++;
		off += size;
		if (type == 71) { /* PERF_RECORD_AUXTRACE: its payload follows the record */
			uint64_t asz2 = 0;
			if (size >= 16)
				memcpy(&asz2, p + off - size + 8, 8);
			if (asz2 > end - off)
				return corrupt("AUXTRACE payload out of bounds");
			off += (size_t)asz2;
		}
	}
	for (size_t i = 0; i < pd->nsamples; i++) {
		pd->samples[i].branches = pd->samples[i].nbranches ? pd->br + pd->br_off[i] : NULL;
		pd->samples[i].regs = pd->samples[i].nregs ? pd->rg + pd->rg_off[i] : NULL;
	}
	return 0;
}

void pmcf_perfdata_free(pmcf_perfdata *pd)
{
	if (!pd)
		return;
	for (size_t i = 0; i < pd->nattrs; i++) {
		free(pd->ids[i]);
		free(pd->names[i]);
	}
	for (size_t i = 0; i < pd->nmmaps; i++)
		free((char *)pd->mmaps[i].filename);
	for (size_t i = 0; i < pd->ncomms; i++)
		free((char *)pd->comms[i].comm);
	free(pd->attrs);
	free(pd->ids);
	free(pd->names);
	free(pd->samples);
	free(pd->br);
	free(pd->br_off);
	free(pd->rg);
	free(pd->rg_off);
	free(pd->mmaps);
	free(pd->comms);
	free(pd->tasks);
	free(pd->idmap);
	free(pd);
}

int pmcf_perfdata_open_buffer(const void *buf, size_t len, pmcf_perfdata **out)
{
	pmcfi_clear_error();
	*out = NULL;
	pmcf_perfdata *pd = calloc(1, sizeof(*pd));
	if (!pd)
		return pmcfi_fail(PMCF_ENOMEM, "perf.data: out of memory");
	pd->st.size = sizeof(pd->st);
	int rc = parse(pd, buf, len);
	if (rc) {
		pmcf_perfdata_free(pd);
		return rc;
	}
	*out = pd;
	return 0;
}

int pmcf_perfdata_open(const char *path, pmcf_perfdata **out)
{
	pmcfi_clear_error();
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return pmcfi_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return pmcfi_fail(PMCF_EINVAL, "%s: not a regular file", path);
	}
	size_t n = (size_t)sb.st_size;
	void *p = NULL;
	if (n) {
		p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			close(fd);
			return pmcfi_fail(-e, "cannot map %s: %s", path, strerror(e));
		}
	}
	close(fd);
	int rc = pmcf_perfdata_open_buffer(n ? p : "", n, out);
	if (n)
		munmap(p, n);
	if (rc)
		pmcfi_fail_prefix(rc, "%s", path);
	return rc;
}

size_t pmcf_perfdata_nattrs(const pmcf_perfdata *pd) { return pd->nattrs; }
const pmcf_pd_attr *pmcf_perfdata_attr(const pmcf_perfdata *pd, size_t i)
{
	return i < pd->nattrs ? &pd->attrs[i] : NULL;
}
size_t pmcf_perfdata_nsamples(const pmcf_perfdata *pd) { return pd->nsamples; }
const pmcf_pd_sample *pmcf_perfdata_sample(const pmcf_perfdata *pd, size_t i)
{
	return i < pd->nsamples ? &pd->samples[i] : NULL;
}
size_t pmcf_perfdata_nmmaps(const pmcf_perfdata *pd) { return pd->nmmaps; }
const pmcf_pd_mmap *pmcf_perfdata_mmap(const pmcf_perfdata *pd, size_t i)
{
	return i < pd->nmmaps ? &pd->mmaps[i] : NULL;
}
size_t pmcf_perfdata_ncomms(const pmcf_perfdata *pd) { return pd->ncomms; }
const pmcf_pd_comm *pmcf_perfdata_comm(const pmcf_perfdata *pd, size_t i)
{
	return i < pd->ncomms ? &pd->comms[i] : NULL;
}
size_t pmcf_perfdata_ntasks(const pmcf_perfdata *pd) { return pd->ntasks; }
const pmcf_pd_task *pmcf_perfdata_task(const pmcf_perfdata *pd, size_t i)
{
	return i < pd->ntasks ? &pd->tasks[i] : NULL;
}
const pmcf_pd_stats *pmcf_perfdata_stats(const pmcf_perfdata *pd) { return &pd->st; }
const char *pmcf_perfdata_cpuid(const pmcf_perfdata *pd) { return pd->cpuid; }
