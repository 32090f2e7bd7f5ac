/* Static side of HBBP: an ELF module's segments, executable sections and
 * functions (libelf), lazy disassembly with Zydis (XED-like mnemonic, ISA
 * extension/set, category), basic blocks per function, source lines (libdw). */
#include <elf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <Zydis/Zydis.h>
#include "collect/typename.h"
#include "hbbp/hbbp_impl.h"
#include "util/abi.h"
#include "util/internal.h"

#define NNAMES ((size_t)ZYDIS_MNEMONIC_MAX_VALUE + 1)

struct sect {
	uint64_t addr, size;
	const uint8_t *bytes;
	const char *name;
};

static int func_cmp(const void *a, const void *b)
{
	const struct pmcfi_hbbp_func *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end; /* longer first */
}

static int add_func(struct pmcfi_hbbp_func **fs, size_t *n, size_t *cap, const char *name, uint64_t start,
		    uint64_t end, const uint8_t *bytes)
{
	if (pmcfi_grow((void **)fs, cap, *n + 1, sizeof(**fs)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	struct pmcfi_hbbp_func *f = &(*fs)[(*n)++];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->start = start;
	f->end = end;
	f->bytes = bytes;
	return f->name ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
}

void pmcfi_hbbp_image_free(struct pmcfi_hbbp_image *im)
{
	if (!im)
		return;
	for (size_t i = 0; i < im->nfuncs; i++) {
		struct pmcfi_hbbp_func *f = &im->funcs[i];
		free(f->name);
		free(f->ins);
		free(f->blocks);
		free(f->ebs);
		free(f->ebs_head);
		free(f->lbr);
		free(f->ref);
		free(f->oldest);
		free(f->inlbr);
	}
	free(im->funcs);
	if (im->names)
		for (size_t i = 0; i < im->nnames; i++)
			free(im->names[i]);
	free(im->names);
	free(im->segs);
	if (im->dwarf)
		dwarf_end(im->dwarf);
	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
	free(im->path);
	free(im);
}

/* The first of the n functions fs (sorted, disjoint) that ends after addr. */
static size_t func_after(const struct pmcfi_hbbp_func *fs, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fs[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Functions that no symbol names (a stripped image): every FDE start of
 * .eh_frame_hdr's search table (unwinders need it, so strip keeps it), up
 * to the next FDE start or named function (padding included), as sub_ADDR
 * (hs: that section, found by load's walk of the sections, or NULL).
 * The table encoding GNU ld and lld write (datarel sdata4) only; otherwise,
 * or without such a table, the gaps stay functions named after their section. */
static int fde_funcs(Elf_Scn *hs, const GElf_Shdr *hsh, const struct sect *sects, size_t nsects,
		     struct pmcfi_hbbp_func **fs, size_t *nf, size_t *capf)
{
	size_t nsym = *nf;
	Elf_Data *d = hs ? elf_rawdata(hs, NULL) : NULL;
	if (!d || !d->d_buf || d->d_size < 12)
		return 0;
	const uint8_t *b = d->d_buf;
	/* version 1; eh_frame_ptr and fde_count 4 bytes; table datarel sdata4 */
	if (b[0] != 1 || ((b[1] & 0x0f) != 0x03 && (b[1] & 0x0f) != 0x0b) || (b[2] != 0x03 && b[2] != 0x0b) ||
	    b[3] != 0x3b)
		return 0;
	uint32_t cnt;
	memcpy(&cnt, b + 8, 4);
	if ((d->d_size - 12) / 8 < cnt)
		return 0;
	int rc = 0;
	for (uint32_t i = 0; i < cnt && !rc; i++) {
		int32_t loc, next;
		memcpy(&loc, b + 12 + (size_t)i * 8, 4);
		uint64_t start = hsh->sh_addr + (uint64_t)(int64_t)loc, hi = UINT64_MAX;
		if (i + 1 < cnt) { /* the table is sorted: up to the next FDE */
			memcpy(&next, b + 12 + (size_t)(i + 1) * 8, 4);
			hi = hsh->sh_addr + (uint64_t)(int64_t)next;
		}
		size_t j = func_after(*fs, nsym, start);
		if ((j < nsym && (*fs)[j].start <= start) || hi <= start)
			continue; /* a symbol names it */
		if (j < nsym && hi > (*fs)[j].start)
			hi = (*fs)[j].start;
		for (size_t k = 0; k < nsects; k++) {
			const struct sect *sc = &sects[k];
			if (start < sc->addr || start >= sc->addr + sc->size)
				continue;
			if (hi > sc->addr + sc->size)
				hi = sc->addr + sc->size;
			char nm[32];
			snprintf(nm, sizeof(nm), "sub_%llx", (unsigned long long)start);
			rc = add_func(fs, nf, capf, nm, start, hi, sc->bytes + (start - sc->addr));
			break;
		}
	}
	return rc;
}

static int load(struct pmcfi_hbbp_image *im)
{
	Elf *e = im->elf;
	if (elf_kind(e) != ELF_K_ELF)
		return pmcfi_fail(PMCF_ENOTSUP, "%s: not an ELF file", im->path);
	GElf_Ehdr eh;
	if (!gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return pmcfi_fail(PMCF_ENOTSUP, "%s: not an x86-64 ELF file", im->path);
	size_t nph = 0;
	if (elf_getphdrnum(e, &nph) != 0)
		nph = 0;
	im->segs = calloc(nph + 1, sizeof(*im->segs));
	if (!im->segs)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			im->segs[im->nsegs++] = (struct pmcfi_hbbp_seg){ph.p_offset, ph.p_vaddr, ph.p_filesz};
	}
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return pmcfi_fail(PMCF_ECORRUPT, "%s: no section names: %s", im->path, elf_errmsg(-1));
	struct sect *sects = NULL;
	size_t nsects = 0, capsects = 0;
	Elf_Scn *symscn = NULL, *dynscn = NULL, *ehscn = NULL;
	GElf_Shdr ehsh = {0};
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symscn = s;
		if (sh.sh_type == SHT_DYNSYM)
			dynscn = s;
		const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_PROGBITS && nm && strcmp(nm, ".eh_frame_hdr") == 0) {
			ehscn = s;
			ehsh = sh;
		}
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		Elf_Data *d = elf_rawdata(s, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			continue;
		if (pmcfi_grow((void **)&sects, &capsects, nsects + 1, sizeof(*sects))) {
			free(sects);
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		}
		sects[nsects++] = (struct sect){sh.sh_addr, sh.sh_size, d->d_buf, nm ? nm : "?"};
	}
	struct pmcfi_hbbp_func *fs = NULL;
	size_t nf = 0, capf = 0;
	int rc = 0;
	Elf_Scn *ss = symscn ? symscn : dynscn;
	if (ss) {
		GElf_Shdr sh;
		Elf_Data *d = elf_getdata(ss, NULL);
		if (gelf_getshdr(ss, &sh) && d && sh.sh_entsize) {
			size_t ns = sh.sh_size / sh.sh_entsize;
			for (size_t i = 0; i < ns && !rc; i++) {
				GElf_Sym sym;
				if (!gelf_getsym(d, (int)i, &sym))
					break;
				int t = GELF_ST_TYPE(sym.st_info);
				if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
				    !sym.st_size)
					continue;
				if (!strcmp(elf_strptr(e, sh.sh_link, sym.st_name) ?: "", "_text"))
					im->kernel_text = sym.st_value;
				for (size_t k = 0; k < nsects; k++) {
					const struct sect *sc = &sects[k];
					if (sym.st_value >= sc->addr && sym.st_value < sc->addr + sc->size) {
						uint64_t end = sym.st_value + sym.st_size;
						if (end > sc->addr + sc->size || end < sym.st_value)
							end = sc->addr + sc->size;
						const char *nm = elf_strptr(e, sh.sh_link, sym.st_name);
						rc = add_func(&fs, &nf, &capf, nm && *nm ? nm : "?",
							      sym.st_value, end,
							      sc->bytes + (sym.st_value - sc->addr));
						break;
					}
				}
			}
		}
	}
	if (!rc && nf)
		qsort(fs, nf, sizeof(*fs), func_cmp);
	/* drop aliases and overlaps */
	size_t w = 0;
	for (size_t i = 0; i < nf; i++) {
		if (w && fs[i].start < fs[w - 1].end) {
			free(fs[i].name);
			continue;
		}
		fs[w++] = fs[i];
	}
	nf = w;
	if (!rc && (rc = fde_funcs(ehscn, &ehsh, sects, nsects, &fs, &nf, &capf)) == 0 && nf)
		qsort(fs, nf, sizeof(*fs), func_cmp);
	/* gaps of executable sections become functions named after the section */
	size_t nsym = nf;
	for (size_t k = 0; k < nsects && !rc; k++) {
		const struct sect *sc = &sects[k];
		uint64_t pos = sc->addr, end = sc->addr + sc->size;
		for (size_t i = 0; i <= nsym && !rc; i++) {
			uint64_t next = end;
			if (i < nsym) {
				if (fs[i].end <= pos || fs[i].start >= end)
					continue;
				next = fs[i].start;
			}
			if (next > pos) {
				char nm[160];
				snprintf(nm, sizeof(nm), "%s@0x%llx", sc->name, (unsigned long long)pos);
				rc = add_func(&fs, &nf, &capf, nm, pos, next, sc->bytes + (pos - sc->addr));
			}
			if (i < nsym && fs[i].end > pos)
				pos = fs[i].end;
		}
	}
	free(sects);
	if (!rc && nf)
		qsort(fs, nf, sizeof(*fs), func_cmp);
	im->funcs = fs;
	im->nfuncs = nf;
	return rc;
}

int pmcfi_hbbp_image_open(const char *path, struct pmcfi_hbbp_image **out)
{
	*out = NULL;
	struct pmcfi_hbbp_image *im = calloc(1, sizeof(*im));
	if (!im)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	im->fd = -1;
	im->path = strdup(path);
	if (!im->path) {
		free(im);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	elf_version(EV_CURRENT);
	im->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (im->fd < 0) {
		int e = errno;
		pmcfi_hbbp_image_free(im);
		return pmcfi_fail(-e, "cannot open %s: %s", path, strerror(e));
	}
	im->elf = elf_begin(im->fd, ELF_C_READ_MMAP, NULL);
	if (!im->elf) {
		pmcfi_hbbp_image_free(im);
		return pmcfi_fail(PMCF_ENOTSUP, "%s: not an ELF file: %s", path, elf_errmsg(-1));
	}
	int rc = load(im);
	if (rc) {
		pmcfi_hbbp_image_free(im);
		return rc;
	}
	*out = im;
	return 0;
}

int pmcfi_hbbp_image_off2addr(const struct pmcfi_hbbp_image *im, uint64_t off, uint64_t *addr)
{
	for (size_t i = 0; i < im->nsegs; i++) {
		const struct pmcfi_hbbp_seg *s = &im->segs[i];
		if (off >= s->off && off - s->off < s->filesz) {
			*addr = off - s->off + s->vaddr;
			return 0;
		}
	}
	return -1;
}

const struct pmcfi_hbbp_func *pmcfi_hbbp_image_func_at(const struct pmcfi_hbbp_image *im, uint64_t addr)
{
	size_t lo = 0, hi = im->nfuncs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (im->funcs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < im->funcs[lo - 1].end ? &im->funcs[lo - 1] : NULL;
}

struct pmcfi_hbbp_func *pmcfi_hbbp_image_func(struct pmcfi_hbbp_image *im, uint64_t addr)
{
	const struct pmcfi_hbbp_func *c = pmcfi_hbbp_image_func_at(im, addr);
	if (!c)
		return NULL;
	struct pmcfi_hbbp_func *f = &im->funcs[c - im->funcs];
	if (!f->decoded && pmcfi_hbbp_func_decode(im, f) != 0)
		return NULL;
	return f;
}

long pmcfi_hbbp_func_ins(const struct pmcfi_hbbp_func *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nins;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->ins[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	const struct pmcfi_hbbp_ins *in = &f->ins[lo - 1];
	return addr < in->addr + in->len ? (long)(lo - 1) : -1;
}

static int name_id(struct pmcfi_hbbp_image *im, ZydisMnemonic mn, int rep)
{
	/* ids: mnemonic * 3 + {0 plain, 1 REP_, 2 REPNE_} */
	size_t id = (size_t)mn * 3 + (size_t)rep;
	if (!im->names) {
		im->names = calloc(NNAMES * 3, sizeof(char *));
		if (!im->names)
			return -1;
		im->nnames = NNAMES * 3;
	}
	if (id >= im->nnames)
		return -1;
	if (!im->names[id]) {
		const char *s = ZydisMnemonicGetString(mn);
		const char *pre = rep == 1 ? "REP_" : rep == 2 ? "REPNE_" : "";
		size_t n = strlen(pre) + strlen(s ? s : "?") + 1;
		char *b = malloc(n);
		if (!b)
			return -1;
		snprintf(b, n, "%s%s", pre, s ? s : "?");
		for (char *p = b; *p; p++)
			if (*p >= 'a' && *p <= 'z')
				*p = (char)(*p - 'a' + 'A');
		im->names[id] = b;
	}
	return (int)id;
}

static int is_vector_ext(const char *e)
{
	return !strncmp(e, "SSE", 3) || !strncmp(e, "AVX", 3) || !strncmp(e, "FMA", 3) ||
	       !strncmp(e, "MMX", 3) || !strcmp(e, "F16C") || !strcmp(e, "XOP") || !strncmp(e, "3DNOW", 5);
}

/* Scalar/packed from the ISA extension and the mnemonic suffix (XED's
 * attribute in spirit: ...SS/...SD/...SH and conversions are scalar). */
static uint8_t packing_of(const ZydisDecodedInstruction *d)
{
	const char *ext = ZydisISAExtGetString(d->meta.isa_ext);
	if (!ext || !is_vector_ext(ext))
		return 0;
	const char *m = ZydisMnemonicGetString(d->mnemonic);
	size_t n = m ? strlen(m) : 0;
	if (n >= 2 && (!strcmp(m + n - 2, "ss") || !strcmp(m + n - 2, "sd") || !strcmp(m + n - 2, "sh")))
		return 1;
	if (m && (strstr(m, "ss2") || strstr(m, "sd2") || strstr(m, "si2s")))
		return 1;
	return 2;
}

static int is_cf(const ZydisDecodedInstruction *d)
{
	switch (d->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT: return 1;
	default:
		return d->mnemonic == ZYDIS_MNEMONIC_UD2 || d->mnemonic == ZYDIS_MNEMONIC_HLT ||
		       d->mnemonic == ZYDIS_MNEMONIC_SYSENTER || d->mnemonic == ZYDIS_MNEMONIC_SYSEXIT;
	}
}

/* n bytes at link address a from the image's PROGBITS sections; 0 or -1. */
static int read_at(const struct pmcfi_hbbp_image *im, uint64_t a, void *out, size_t n)
{
	Elf *e = im->elf;
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (a < sh.sh_addr || a + n > sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_rawdata(s, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return -1;
		memcpy(out, (const uint8_t *)d->d_buf + (a - sh.sh_addr), n);
		return 0;
	}
	return -1;
}

/* The targets of a jump table as leaders: an indirect jmp through a
 * register after `lea r,[rip+T]` (PIC: int32 entries relative to T, gcc and
 * clang) or `jmp [reg*8+T]` (absolute 8-byte entries). Entries are read while
 * they point into the function (a table's end is not written anywhere; an
 * entry past it that still points inside only adds a leader, which splits a
 * block without changing its counts). Without this, the alignment padding
 * before a case and a case that falls into the next were one block with
 * it, counted on every dispatch (issue 36, item 4). */
static void jump_table_leaders(const struct pmcfi_hbbp_image *im, const struct pmcfi_hbbp_func *f,
			       uint64_t table, int pic, uint8_t *leader)
{
	if (!table || !im->elf)
		return;
	for (unsigned k = 0; k < 4096; k++) {
		uint64_t t;
		if (pic) {
			int32_t e;
			if (read_at(im, table + 4ull * k, &e, 4))
				return;
			t = table + (uint64_t)(int64_t)e;
		} else if (read_at(im, table + 8ull * k, &t, 8)) {
			return;
		}
		if (t < f->start || t >= f->end)
			return;
		leader[t - f->start] = 1;
	}
}

/* Linear sweep, leaders (entry, after control flow, direct targets inside the
 * function, jump-table targets), blocks: a block ends at a control-flow instruction or before a
 * leader. */
int pmcfi_hbbp_func_decode(struct pmcfi_hbbp_image *im, struct pmcfi_hbbp_func *f)
{
	if (f->decoded)
		return f->decoded > 0 ? 0 : PMCF_ECORRUPT;
	f->decoded = -1;
	f->im = im;
	ZydisDecoder dec;
	if (ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return pmcfi_fail(PMCF_ENOTSUP, "Zydis decoder init failed");
	size_t size = (size_t)(f->end - f->start), cap = size / 3 + 16;
	f->ins = malloc(cap * sizeof(*f->ins));
	uint8_t *leader = calloc(size + 1, 1);
	if (!f->ins || !leader) {
		free(leader);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	size_t off = 0;
	leader[0] = 1;
	uint64_t lea_rip = 0; /* the last lea r,[rip+d] (a jump table's base) */
	unsigned since_lea = 0;
	uint64_t lea_reg[16] = {0};     /* per register, the last lea r,[rip+d] before (in address order) */
	int add_dst = -1, add_src = -1; /* the last add r,r (a PIC table: entry + base) */
	while (off < size) {
		if (pmcfi_grow((void **)&f->ins, &cap, f->nins + 1, sizeof(*f->ins))) {
			free(leader);
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		}
		struct pmcfi_hbbp_ins *in = &f->ins[f->nins++];
		memset(in, 0, sizeof(*in));
		in->addr = f->start + off;
		ZydisDecodedInstruction d;
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&dec, NULL, f->bytes + off, size - off, &d))) {
			in->len = 1;
			in->flags = INS_BAD;
			int id = name_id(im, ZYDIS_MNEMONIC_INVALID, 0);
			in->mnem = (uint16_t)(id < 0 ? 0 : id);
			off += 1;
			leader[off] = 1;
			continue;
		}
		int rep = 0;
		if (d.meta.category == ZYDIS_CATEGORY_STRINGOP ||
		    d.meta.category == ZYDIS_CATEGORY_IOSTRINGOP) {
			if (d.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE))
				rep = 1;
			else if (d.attributes & ZYDIS_ATTRIB_HAS_REPNE)
				rep = 2;
		}
		int id = name_id(im, d.mnemonic, rep);
		if (id < 0) {
			free(leader);
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		}
		in->mnem = (uint16_t)id;
		in->len = d.length;
		in->isa_ext = (uint16_t)d.meta.isa_ext;
		in->isa_set = (uint16_t)d.meta.isa_set;
		in->cat = (uint16_t)d.meta.category;
		in->packing = packing_of(&d);
		if (rep)
			in->flags |= INS_REP;
		since_lea++;
		int rreg = d.raw.modrm.reg | (d.raw.rex.R << 3), rrm = d.raw.modrm.rm | (d.raw.rex.B << 3);
		if (d.mnemonic == ZYDIS_MNEMONIC_LEA && d.raw.modrm.mod == 0 && d.raw.modrm.rm == 5) {
			lea_rip = in->addr + d.length + (uint64_t)(int64_t)d.raw.disp.value;
			lea_reg[rreg] = lea_rip;
			since_lea = 0;
		}
		if (d.mnemonic == ZYDIS_MNEMONIC_ADD && d.raw.modrm.mod == 3 &&
		    (d.opcode == 0x01 || d.opcode == 0x03) && d.operand_width == 64) {
			add_dst = d.opcode == 0x01 ? rrm : rreg;
			add_src = d.opcode == 0x01 ? rreg : rrm;
		} else if (!(d.mnemonic == ZYDIS_MNEMONIC_JMP && d.opcode == 0xff)) {
			add_dst = add_src = -1;
		}
		if (d.mnemonic == ZYDIS_MNEMONIC_JMP && d.opcode == 0xff && d.raw.modrm.reg == 4) {
			/* jmp r right after add r,b: the table is at b's lea, which
			 * gcc hoists out of an interpreter's dispatch loop */
			if (d.raw.modrm.mod == 3 && add_dst == rrm && add_src >= 0 && lea_reg[add_src])
				jump_table_leaders(im, f, lea_reg[add_src], 1, leader);
			else if (d.raw.modrm.mod == 3 && since_lea <= 8)
				jump_table_leaders(im, f, lea_rip, 1, leader);
			else if (d.raw.modrm.mod == 0 && d.raw.modrm.rm == 4 && d.raw.sib.base == 5 &&
				 d.raw.sib.scale == 3)
				jump_table_leaders(im, f, (uint64_t)(int64_t)d.raw.disp.value, 0, leader);
		}
		off += d.length;
		if (is_cf(&d)) {
			in->flags |= INS_CF;
			if (off <= size)
				leader[off] = 1;
			if ((d.attributes & ZYDIS_ATTRIB_IS_RELATIVE) && d.raw.imm[0].is_relative) {
				uint64_t t = in->addr + d.length + (uint64_t)d.raw.imm[0].value.s;
				if (t >= f->start && t < f->end)
					leader[t - f->start] = 1;
			}
		}
	}
	/* blocks */
	size_t nb = 0;
	for (size_t i = 0; i < f->nins; i++)
		if (i == 0 || leader[f->ins[i].addr - f->start] || (f->ins[i - 1].flags & INS_CF))
			nb++;
	f->blocks = calloc(nb ? nb : 1, sizeof(*f->blocks));
	if (!f->blocks) {
		free(leader);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < f->nins; i++) {
		if (i == 0 || leader[f->ins[i].addr - f->start] || (f->ins[i - 1].flags & INS_CF))
			f->blocks[f->nblocks++] = (struct pmcfi_hbbp_block){f->ins[i].addr, (uint32_t)i, 0};
		f->blocks[f->nblocks - 1].n++;
		f->ins[i].block = (uint32_t)(f->nblocks - 1);
	}
	free(leader);
	f->ebs = calloc(f->nblocks + 1, sizeof(double));
	f->ebs_head = calloc(f->nblocks + 1, sizeof(double));
	f->oldest = calloc(f->nblocks + 1, sizeof(uint64_t));
	f->inlbr = calloc(f->nblocks + 1, sizeof(uint64_t));
	f->lbr = calloc(f->nins + 1, sizeof(double));
	f->ref = calloc(f->nins + 1, sizeof(double));
	if (!f->ebs || !f->ebs_head || !f->oldest || !f->inlbr || !f->lbr || !f->ref)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	f->decoded = 1;
	return 0;
}

const char *pmcfi_hbbp_mnemonic(const struct pmcfi_hbbp_image *im, const struct pmcfi_hbbp_ins *in)
{
	return im->names && in->mnem < im->nnames && im->names[in->mnem] ? im->names[in->mnem] : "?";
}

const char *pmcfi_hbbp_isa_ext(const struct pmcfi_hbbp_ins *in)
{
	return ZydisISAExtGetString((ZydisISAExt)in->isa_ext) ?: "?";
}

const char *pmcfi_hbbp_isa_set(const struct pmcfi_hbbp_ins *in)
{
	return ZydisISASetGetString((ZydisISASet)in->isa_set) ?: "?";
}

const char *pmcfi_hbbp_category(const struct pmcfi_hbbp_ins *in)
{
	if (in->flags & INS_BAD)
		return "INVALID";
	return ZydisCategoryGetString((ZydisInstructionCategory)in->cat) ?: "?";
}

const char *pmcfi_hbbp_packing(const struct pmcfi_hbbp_ins *in)
{
	static const char *const p[] = {"NONE", "SCALAR", "PACKED"};
	return p[in->packing < 3 ? in->packing : 0];
}

unsigned pmcfi_hbbp_image_line(struct pmcfi_hbbp_image *im, uint64_t addr, const char **file)
{
	*file = NULL;
	if (!im->dwarf_tried) {
		im->dwarf_tried = 1;
		im->dwarf = dwarf_begin_elf(im->elf, DWARF_C_READ, NULL);
	}
	if (!im->dwarf)
		return 0;
	/* pmcfi_dwarf_cu_at: dwarf_addrdie alone needs .debug_aranges, which clang
	 * does not emit by default (every line was ??:0 on a clang build) */
	Dwarf_Die cu;
	if (pmcfi_dwarf_cu_at(im->dwarf, addr, &cu) != 0)
		return 0;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
	int ln = 0;
	if (!l || dwarf_lineno(l, &ln) != 0)
		return 0;
	*file = dwarf_linesrc(l, NULL, NULL);
	return ln > 0 ? (unsigned)ln : 0;
}
