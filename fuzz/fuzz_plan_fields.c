/* libFuzzer harness: the validation of plan.json fields (issue 22). The input
 * chooses the numeric fields of an otherwise valid plan (pmcs, seed,
 * executions, lower_bound: edge values, or digits taken from the input) and
 * its source; pmcf_plan_from_json must accept the plan exactly when every
 * field is valid as the option it mirrors (--pmcs 1..64 or 0, --seed
 * 0..2^64-1, executions = the number of sets, lower bound <= it, one source)
 * and then return the values given. Any disagreement aborts. */
#include <errno.h>
#include <inttypes.h>
#include "fuzz_common.h"
#include "pmcfuse/plan.h"

/* A JSON value text, and what it is as a whole number. */
struct num {
	char text[48];
	int whole;      /* a JSON integer */
	int neg;        /* below 0 */
	uint64_t value; /* when whole and not neg and not over */
	int over;       /* beyond 2^64-1 */
};

static const char *const fixed[] = {
	"0", "1", "2", "4", "64", "65", "-1", "100000", "4294967297", "9223372036854775807",
	"9223372036854775808", "18446744073709551615", "18446744073709551616",
	"-9223372036854775809", "99999999999999999999999", "1e308", "2.5", "\"4\"", "null", "true",
};

/* value k of the menu above, or digits read from the input */
static void choose(struct num *n, uint8_t k, const uint8_t **d, size_t *left)
{
	memset(n, 0, sizeof(*n));
	if (k % 32 < sizeof(fixed) / sizeof(fixed[0])) {
		snprintf(n->text, sizeof(n->text), "%s", fixed[k % 32]);
	} else {
		size_t len = 0;
		if (k & 64)
			n->text[len++] = '-';
		while (*left && len < 30) {
			uint8_t c = **d;
			(*d)++, (*left)--;
			if (c == ';')
				break;
			n->text[len++] = (char)('0' + c % 10);
		}
		if (len == (size_t)(k & 64 ? 1 : 0))
			n->text[len++] = '7';
		/* JSON has no leading zeros: drop them */
		char *digits = n->text + (n->text[0] == '-');
		while (digits[0] == '0' && digits[1])
			memmove(digits, digits + 1, strlen(digits));
	}
	const char *t = n->text;
	n->whole = (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) && !strpbrk(t, ".e\"");
	if (!n->whole)
		return;
	n->neg = t[0] == '-' && strcmp(t, "-0") != 0;
	if (t[0] == '-')
		return;
	errno = 0;
	n->value = strtoull(t, NULL, 10);
	n->over = errno == ERANGE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 6)
		return 0;
	const uint8_t *d = data + 6;
	size_t left = size - 6;
	struct num pmcs, seed, ex, lb;
	choose(&pmcs, data[0], &d, &left);
	choose(&seed, data[1], &d, &left);
	choose(&ex, data[2], &d, &left);
	choose(&lb, data[3], &d, &left);
	size_t nsets = 1 + data[4] % 4;
	unsigned src = data[5] % 5, present = data[5] / 5; /* which fields are written */
	static const char *const sources[] = {
		"", "\"source\": {\"sim\": \"cholesky,blocks=4\"}, ",
		"\"source\": {\"program\": \"/bin/true\", \"args\": [\"a\"]}, ",
		"\"source\": {\"sim\": \"cholesky\", \"program\": \"p\"}, ", "\"source\": {\"args\": []}, "};
	char js[1024], sets[64] = "";
	for (size_t k = 0; k < nsets; k++)
		strcat(sets, k ? ", [\"e\"]" : "[\"e\"]");
	int n = snprintf(js, sizeof(js), "{\"format\": \"pmcfuse-plan\", \"version\": 1, %s\"pmcs\": %s, \"seed\": %s, ",
			 sources[src], pmcs.text, seed.text);
	if (present & 1)
		n += snprintf(js + n, sizeof(js) - (size_t)n, "\"executions\": %s, ", ex.text);
	if (present & 2)
		n += snprintf(js + n, sizeof(js) - (size_t)n, "\"lower_bound\": %s, ", lb.text);
	snprintf(js + n, sizeof(js) - (size_t)n, "\"sets\": [%s]}", sets);
	/* the oracle */
	int valid = src <= 2 && pmcs.whole && !pmcs.neg && !pmcs.over && pmcs.value <= PMCF_PLAN_MAX_PMCS &&
		    seed.whole && !seed.neg && !seed.over;
	if (present & 1)
		valid = valid && ex.whole && !ex.neg && !ex.over && ex.value == nsets;
	if (present & 2)
		valid = valid && lb.whole && !lb.neg && !lb.over && lb.value <= nsets;
	pmcf_plan *p = NULL;
	int err = pmcf_plan_from_json(js, &p);
	if (err == PMCF_ENOMEM)
		return 0;
	if ((err == 0) != valid) {
		fprintf(stderr, "plan %s\n%s: %s\n", js, err ? "refused" : "accepted", err ? pmcf_errdetail() : "");
		abort();
	}
	if (!err && (pmcf_plan_pmcs(p) != pmcs.value || pmcf_plan_seed(p) != seed.value ||
		     pmcf_plan_nsets(p) != nsets))
		abort();
	pmcf_plan_free(p);
	return 0;
}
