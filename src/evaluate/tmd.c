/* Task Mover's Distance histograms (fuse-task-parallel §4.3): B bins per
 * event over the reference range plus one bin below and one above, bin
 * weight = share of the XUs, bin location = centroid of the bin's XUs in
 * fractional bin units; the uncalibrated TMD is the EMD between two such
 * histograms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "evaluate/tmd.h"
#include "util/internal.h"

void pmcfi_tmd_grid(unsigned bins, const double lo[2], const double hi[2], struct pmcfi_grid *g)
{
	g->bins = bins;
	g->side = bins + 2;
	for (int k = 0; k < 2; k++) {
		double l = lo[k], h = hi[k];
		if (!(h > l)) /* a constant reference: one unit of range per bin scale */
			h = l + (fabs(l) > 1 ? fabs(l) : 1);
		g->lo[k] = l;
		g->scale[k] = (double)bins / (h - l);
	}
}

size_t pmcfi_tmd_hist(const struct pmcfi_grid *g, const double *x, const double *y, const size_t *idx,
		      size_t n, double *acc, double *w, double *pts, size_t *used)
{
	size_t cells = (size_t)g->side * g->side;
	double *cnt = acc, *sx = acc + cells, *sy = acc + 2 * cells;
	memset(acc, 0, 3 * cells * sizeof(*acc));
	size_t kept = 0;
	const double B = (double)g->bins;
	for (size_t k = 0; k < n; k++) {
		size_t i = idx ? idx[k] : k;
		double vx = x[i], vy = y[i];
		if (vx != vx || vy != vy)
			continue; /* missing: left out of this pair */
		double fx = (vx - g->lo[0]) * g->scale[0], fy = (vy - g->lo[1]) * g->scale[1];
		unsigned bx = fx < 0 ? 0 : fx > B ? g->bins + 1 : fx == B ? g->bins : 1 + (unsigned)fx;
		unsigned by = fy < 0 ? 0 : fy > B ? g->bins + 1 : fy == B ? g->bins : 1 + (unsigned)fy;
		size_t c = (size_t)by * g->side + bx;
		cnt[c] += 1;
		sx[c] += fx;
		sy[c] += fy;
		kept++;
	}
	*used = kept;
	size_t np = 0;
	if (!kept)
		return 0;
	for (size_t c = 0; c < cells; c++) {
		if (cnt[c] == 0)
			continue;
		w[np] = cnt[c] / (double)kept;
		pts[2 * np] = sx[c] / cnt[c];
		pts[2 * np + 1] = sy[c] / cnt[c];
		np++;
	}
	return np;
}

int pmcf_tmd2(pmcf_emd_ws *ws, unsigned bins, const double lo[2], const double hi[2], const double *ax,
	      const double *ay, size_t an, const double *bx, const double *by, size_t bn, double *tmd,
	      double *left_out_a)
{
	pmcfi_clear_error();
	*tmd = NAN;
	if (bins < 1 || bins > PMCFI_TMD_MAX_BINS)
		return pmcfi_fail(PMCF_EINVAL, "TMD: %u bins (1 to %d)", bins, PMCFI_TMD_MAX_BINS);
	struct pmcfi_grid g;
	pmcfi_tmd_grid(bins, lo, hi, &g);
	size_t cells = (size_t)g.side * g.side;
	double *buf = malloc(9 * cells * sizeof(*buf));
	if (!buf)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	double *acc = buf, *wa = buf + 3 * cells, *pa = wa + cells, *wb = pa + 2 * cells, *pb = wb + cells;
	/* pb ends at buf + 9 * cells */
	size_t ua, ub;
	size_t na = pmcfi_tmd_hist(&g, ax, ay, NULL, an, acc, wa, pa, &ua);
	size_t nb = pmcfi_tmd_hist(&g, bx, by, NULL, bn, acc, wb, pb, &ub);
	if (left_out_a)
		*left_out_a = an ? 1.0 - (double)ua / (double)an : 0;
	int err = 0;
	if (!na || !nb)
		err = pmcfi_fail(PMCF_ENOENT, "TMD: no XU with both values on the %s side",
				 na ? "second" : "first");
	else
		err = pmcf_emd(ws, 2, wa, pa, na, wb, pb, nb, tmd);
	free(buf);
	return err;
}
