/* The branch kernels keep the control flow Table 1 assumes at every -O: the
 * kernels source is compiled at -O0..-O3/-Os (gcc, and clang from -O1 when
 * installed) and the built pmcfuse-categorize-kernels is disassembled (objdump -d);
 * each kernel's loop must hold the expected conditional and direct branches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#define MAXBR 64
struct branch {
	unsigned long addr, target;
	int cond; /* 1: conditional, 0: jmp */
};
struct kernel {
	struct branch br[MAXBR];
	size_t n;
};

/* Reads the branches of cit_branch_a..g from objdump -d of file. */
static int disassemble(const char *file, struct kernel k[7])
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn '%s' 2>/dev/null", file);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	memset(k, 0, 7 * sizeof(*k));
	char line[512];
	int cur = -1, found = 0;
	while (fgets(line, sizeof(line), p)) {
		char name[128];
		unsigned long a;
		if (sscanf(line, "%lx <%127[^>]>:", &a, name) == 2) {
			cur = strncmp(name, "cit_branch_", 11) == 0 && name[11] >= 'a' && name[11] <= 'g' &&
					      name[12] == 0
				      ? name[11] - 'a'
				      : -1;
			found += cur >= 0;
			continue;
		}
		char mn[32];
		unsigned long t;
		if (cur < 0 || sscanf(line, " %lx: %31s %lx", &a, mn, &t) != 3 || mn[0] != 'j')
			continue;
		if (k[cur].n < MAXBR) {
			int jmp = strncmp(mn, "jmp", 3) == 0;
			k[cur].br[k[cur].n++] = (struct branch){a, t, !jmp};
		}
	}
	pclose(p);
	return found;
}

/* Checks one kernel (0..6 = a..g); returns NULL or what is wrong. */
static const char *check_kernel(int id, const struct kernel *k)
{
	/* the loop: the one backward conditional branch and its target */
	const struct branch *latch = NULL;
	for (size_t i = 0; i < k->n; i++)
		if (k->br[i].cond && k->br[i].target < k->br[i].addr) {
			if (latch)
				return "more than one backward conditional branch";
			latch = &k->br[i];
		}
	if (!latch)
		return "no loop branch";
	unsigned long lo = latch->target, hi = latch->addr;
	size_t cond = 0, jmp = 0;
	const struct branch *iff = NULL, *go = NULL;
	for (size_t i = 0; i < k->n; i++) {
		const struct branch *b = &k->br[i];
		if (b->addr < lo || b->addr > hi)
			continue;
		if (b->cond) {
			cond++;
			if (b != latch)
				iff = b;
		} else {
			jmp++;
			if (!go)
				go = b;
		}
	}
	if (id == 6)
		return cond == 1 && jmp == 0 ? NULL : "(g) needs only its loop branch";
	if (cond != 2)
		return "needs two conditional branches in its loop";
	if (!iff || iff->target < iff->addr)
		return "the if must branch forward";
	if (id == 5) {
		/* (f): the goto is an executed direct jump forward, inside the loop */
		if (jmp < 1 || go->target <= go->addr || go->target > hi)
			return "(f) needs a direct forward jump in its loop";
		return NULL;
	}
	if (jmp != 0)
		return "no direct jump may run in the loop";
	if (iff->target > hi)
		return "the if must skip its body inside the loop (body laid out inline)";
	return NULL;
}

static void check_file(const char *file, const char *what)
{
	struct kernel k[7];
	int found = disassemble(file, k);
	if (found != 7)
		fail_msg("%s: found %d of the 7 kernels in the disassembly", what, found);
	for (int id = 0; id < 7; id++) {
		const char *why = check_kernel(id, &k[id]);
		if (why)
			fail_msg("%s: kernel (%c): %s", what, 'a' + id, why);
	}
}

static int have(const char *tool)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static void test_source_every_level(void **state)
{
	(void)state;
	const char *src = getenv("PMCF_SOURCE_DIR");
	const char *tmp = getenv("PMCF_TEST_TMP");
	if (!src || !tmp || !have("objdump") || !have("cc")) {
		printf("skipped: needs PMCF_SOURCE_DIR, PMCF_TEST_TMP (ctest), objdump and cc\n");
		skip();
	}
	static const char *const levels[] = {"-O0", "-O1", "-O2", "-O3", "-Os"};
	static const char *const compilers[] = {"cc", "clang"};
	for (size_t c = 0; c < 2; c++) {
		if (!have(compilers[c]))
			continue;
		for (size_t l = 0; l < 5; l++) {
			/* clang -O0 adds an unconditional jump after every block;
			 * the build compiles the kernels at -O2 whatever the type */
			if (c == 1 && l == 0)
				continue;
			char obj[512], cmd[2048], what[64];
			snprintf(obj, sizeof(obj), "%s/cit_branch_%s_%s.o", tmp, compilers[c], levels[l] + 1);
			snprintf(cmd, sizeof(cmd),
				 "%s -std=c11 %s -c '%s/src/categorize/kernels/branch.c' -o '%s'",
				 compilers[c], levels[l], src, obj);
			assert_int_equal(system(cmd), 0);
			snprintf(what, sizeof(what), "%s %s", compilers[c], levels[l]);
			check_file(obj, what);
			unlink(obj);
		}
	}
}

static void test_built_kernels(void **state)
{
	(void)state;
	char path[4096];
	const char *env = getenv("PMCF_CATEGORIZE_KERNELS");
	if (env && *env) {
		snprintf(path, sizeof(path), "%s", env);
	} else {
		/* tests/<test> → the build folder, where pmcfuse and the kernels are */
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);
		assert_true(n > 0);
		path[n] = 0;
		*strrchr(path, '/') = 0;
		char *up = strrchr(path, '/');
		assert_non_null(up);
		strcpy(up, "/pmcfuse-categorize-kernels");
	}
	if (access(path, X_OK) != 0 || !have("objdump")) {
		printf("skipped: %s not built or objdump missing\n", path);
		skip();
	}
	check_file(path, "pmcfuse-categorize-kernels");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_source_every_level),
		cmocka_unit_test(test_built_kernels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
