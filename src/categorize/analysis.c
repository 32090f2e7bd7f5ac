/* Counter-inspection analysis: least-squares slopes, the goodness of Eq. (1)
 * matched against Table 1 (counter-inspection-toolkit §3.4, §5), and cache
 * step functions turned into transition signatures (§4, §5). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmcfuse/categorize.h"
#include "util/abi.h"
#include "util/internal.h"
#include "x/x.h"

/* Table 1: expected events per iteration, rows CE CR T D M, kernels a..g. */
static const double table1[PMCF_CATEGORIZE_NCATS][PMCF_CATEGORIZE_NKERNELS] = {
	{2, 2, 2, 2, 2.5, 2, 1},     /* CE */
	{2, 2, 2, 2, 2, 2, 1},       /* CR */
	{1.5, 1, 2, 1.5, 1.5, 1, 1}, /* T */
	{0, 0, 0, 0, 0, 1, 0},       /* D */
	{0, 0, 0, 0.5, 0.5, 0, 0},   /* M */
};
static const char *const cat_names[PMCF_CATEGORIZE_NCATS] = {"CE", "CR", "T", "D", "M"};

#define DEFAULT_THRESHOLD 0.5

const char *pmcf_categorize_branch_name(int category)
{
	return category >= 0 && category < PMCF_CATEGORIZE_NCATS ? cat_names[category] : "none";
}

double pmcf_categorize_expected(int category, unsigned kernel)
{
	if (category < 0 || category >= PMCF_CATEGORIZE_NCATS || kernel >= PMCF_CATEGORIZE_NKERNELS)
		return NAN;
	return table1[category][kernel];
}

int pmcf_categorize_fit_line(const double *x, const double *y, size_t n, pmcf_categorize_fit *out)
{
	if (!x || !y || !out || n < 2)
		return pmcfi_fail(PMCF_EINVAL, "a line fit needs at least two points");
	int rc = pmcfi_struct_fill("pmcf_categorize_fit", out, sizeof(*out), sizeof(*out));
	if (rc)
		return rc;
	double mx = 0, my = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			return pmcfi_fail(PMCF_EINVAL, "a line fit needs finite values");
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	double sxx = 0, sxy = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		double dx = x[i] - mx, dy = y[i] - my;
		sxx += dx * dx;
		sxy += dx * dy;
		syy += dy * dy;
	}
	if (sxx <= 0)
		return pmcfi_fail(PMCF_EINVAL, "a line fit needs two distinct x values");
	out->slope = sxy / sxx;
	out->intercept = my - out->slope * mx;
	/* r² of a constant y is 0: nothing of it is explained by x */
	out->r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
	return 0;
}

double pmcf_categorize_goodness(double slope, double r2, double expected)
{
	double d = slope * r2 - expected; /* Eq. (1): β_m·r² − β_e */
	return exp(-2 * d * d);
}

int pmcf_categorize_branch_classify(const pmcf_categorize_fit *fits, double threshold,
				    pmcf_categorize_branch_match *out)
{
	if (!fits || !out)
		return pmcfi_fail(PMCF_EINVAL, "branch classification needs fits and a result");
	if (threshold <= 0)
		threshold = DEFAULT_THRESHOLD;
	size_t stride;
	int rc = pmcfi_struct_stride("pmcf_categorize_fit", fits, PMCF_CATEGORIZE_NKERNELS, sizeof(*fits),
				     sizeof(*fits), &stride);
	if (rc || (rc = pmcfi_struct_reset("pmcf_categorize_branch_match", out, sizeof(*out))))
		return rc;
#define fits(k) ((const pmcf_categorize_fit *)((const char *)fits + (k)*stride))
	out->category = -1;
	int best = -1;
	for (int c = 0; c < PMCF_CATEGORIZE_NCATS; c++) {
		/* A row fits when every kernel fits it: the product of the
		 * per-kernel goodness values (each in (0, 1]). */
		double s = 1;
		for (unsigned k = 0; k < PMCF_CATEGORIZE_NKERNELS; k++)
			s *= pmcf_categorize_goodness(fits(k)->slope, fits(k)->r2, table1[c][k]);
		out->score[c] = s;
		if (best < 0 || s > out->score[best])
			best = c;
	}
	out->confidence = out->score[best];
	if (out->confidence >= threshold)
		out->category = best;
	return 0;
#undef fits
}

/* ---- cache levels ----------------------------------------------------------- */

static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -1;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* "48K", "1024K", "32M" → bytes; 0 when unreadable. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return 0;
	if (*end == 'K' || *end == 'k')
		v <<= 10;
	else if (*end == 'M' || *end == 'm')
		v <<= 20;
	else if (*end == 'G' || *end == 'g')
		v <<= 30;
	return v;
}

int pmcf_categorize_levels_sysfs(const char *root, pmcf_categorize_levels *out)
{
	if (!out)
		return pmcfi_fail(PMCF_EINVAL, "no result for the cache levels");
	if (!root)
		root = "/sys/devices/system/cpu/cpu0/cache";
	int rc = pmcfi_struct_reset("pmcf_categorize_levels", out, sizeof(*out));
	if (rc)
		return rc;
	uint64_t by_level[PMCF_CATEGORIZE_MAX_LEVELS + 1] = {0};
	DIR *d = opendir(root);
	if (!d)
		return pmcfi_fail(PMCF_ENOENT, "cannot read the cache levels in %s", root);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "index", 5) != 0)
			continue;
		char dir[512], type[32], level[16], size[32];
		snprintf(dir, sizeof(dir), "%s/%s", root, de->d_name);
		if (read_line(dir, "type", type, sizeof(type)) ||
		    read_line(dir, "level", level, sizeof(level)) ||
		    read_line(dir, "size", size, sizeof(size)))
			continue;
		if (strcmp(type, "Instruction") == 0)
			continue;
		long lv = strtol(level, NULL, 10);
		if (lv >= 1 && lv <= PMCF_CATEGORIZE_MAX_LEVELS)
			by_level[lv] = parse_size(size);
	}
	closedir(d);
	for (int lv = 1; lv <= PMCF_CATEGORIZE_MAX_LEVELS; lv++) {
		uint64_t b = by_level[lv];
		if (!b || (out->n && b <= out->bytes[out->n - 1]))
			continue;
		out->bytes[out->n] = b;
		snprintf(out->name[out->n], sizeof(out->name[0]), lv == 1 ? "L1D" : "L%d", lv);
		out->n++;
	}
	if (!out->n)
		return pmcfi_fail(PMCF_ENOENT, "no data cache found in %s", root);
	if (out->n > 1)
		snprintf(out->name[out->n - 1], sizeof(out->name[0]), "LL");
	return 0;
}

/* ---- cache step functions ------------------------------------------------------ */

/* Median of the values whose size lies in [lo, hi]; NaN when none. */
static double region_median(const double *bytes, const double *v, size_t n, double lo, double hi)
{
	double tmp[256];
	size_t m = 0;
	for (size_t i = 0; i < n && m < PMCF_ARRAY_SIZE(tmp); i++)
		if (bytes[i] >= lo && bytes[i] <= hi && isfinite(v[i]))
			tmp[m++] = v[i];
	return m ? pmcfi_median(tmp, m) : NAN;
}

int pmcf_categorize_cache_classify(const pmcf_categorize_levels *lv, const double *bytes,
				   const double *per_access, size_t n, double threshold,
				   pmcf_categorize_cache_match *out)
{
	if (!lv || !out || (n && (!bytes || !per_access)))
		return pmcfi_fail(PMCF_EINVAL, "cache classification needs levels and values");
	int rc = pmcfi_check_struct("pmcf_categorize_levels", lv, lv->size, sizeof(*lv), sizeof(*lv));
	if (rc)
		return rc;
	if (lv->n == 0 || lv->n > PMCF_CATEGORIZE_MAX_LEVELS)
		return pmcfi_fail(PMCF_EINVAL, "cache classification needs 1 to %d levels",
				  PMCF_CATEGORIZE_MAX_LEVELS);
	if (threshold <= 0)
		threshold = DEFAULT_THRESHOLD;
	rc = pmcfi_struct_reset("pmcf_categorize_cache_match", out, sizeof(*out));
	if (rc)
		return rc;
	out->level = -1;
	snprintf(out->category, sizeof(out->category), "none");
	snprintf(out->signature, sizeof(out->signature), "flat");
	unsigned L = lv->n;
	double peak = 0;
	for (unsigned r = 0; r <= L; r++) {
		double lo = r ? 2.0 * (double)lv->bytes[r - 1] : 0;
		double hi = r < L ? (double)lv->bytes[r] / 2 : INFINITY;
		out->plateau[r] = region_median(bytes, per_access, n, lo, hi);
		if (isfinite(out->plateau[r]) && fabs(out->plateau[r]) > peak)
			peak = fabs(out->plateau[r]);
	}
	for (unsigned r = L + 1; r <= PMCF_CATEGORIZE_MAX_LEVELS; r++)
		out->plateau[r] = NAN;
	/* An event that (almost) never counts in the chase has no signature:
	 * below one count per hundred accesses on every plateau, it is not about
	 * these accesses (and normalising its noise would invent steps). */
	if (peak < 1e-2)
		return 0;
	double jump[PMCF_CATEGORIZE_MAX_LEVELS];
	size_t len = 0;
	out->signature[0] = 0;
	for (unsigned k = 0; k < L; k++) {
		double a = out->plateau[k], b = out->plateau[k + 1];
		jump[k] = isfinite(a) && isfinite(b) ? (b - a) / peak : NAN;
		if (isfinite(jump[k]) && fabs(jump[k]) >= 0.5 && len + 12 < sizeof(out->signature))
			len += (size_t)snprintf(out->signature + len, sizeof(out->signature) - len, "%s%c%s",
						len ? " " : "", jump[k] > 0 ? '+' : '-', lv->name[k]);
	}
	if (!len)
		snprintf(out->signature, sizeof(out->signature), "flat");
	/* Score every <level>-<hit|miss> signature: the goodness of Eq. (1) of
	 * each normalised jump (r² = 1) against the ideal one, multiplied. */
	double best = -1;
	for (unsigned k = 0; k < L; k++) {
		for (int miss = 0; miss <= 1; miss++) {
			double s = 1;
			for (unsigned j = 0; j < L; j++) {
				double want = miss ? (j == k) : (j == k ? -1 : (k > 0 && j == k - 1));
				if (!isfinite(jump[j])) {
					s = 0; /* a missing plateau: no evidence either way */
					break;
				}
				s *= pmcf_categorize_goodness(jump[j], 1, want);
			}
			if (s > best) {
				best = s;
				out->level = (int)k;
				out->miss = miss;
			}
		}
	}
	out->confidence = best > 0 ? best : 0;
	if (out->confidence < threshold) {
		out->level = -1;
		out->miss = 0;
		return 0;
	}
	snprintf(out->category, sizeof(out->category), "%s-%s", lv->name[out->level],
		 out->miss ? "miss" : "hit");
	return 0;
}
