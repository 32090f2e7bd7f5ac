/* The time bound of the planner's searches (the exact packing of plan.c,
 * the --link auto search of link_auto.c): a file of its own, below both,
 * so that neither calls into the other (scripts/call-circles.py). */
#include <math.h>
#include <time.h>
#include "plan/plan_impl.h"

int pmcfi_plan_past(const struct timespec *d)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > d->tv_sec || (now.tv_sec == d->tv_sec && now.tv_nsec > d->tv_nsec);
}

void pmcfi_plan_deadline(double limit_s, struct timespec *d)
{
	double lim = limit_s > 0 ? limit_s : 1.0;
	clock_gettime(CLOCK_MONOTONIC, d);
	d->tv_sec += (time_t)lim;
	d->tv_nsec += (long)((lim - floor(lim)) * 1e9);
	if (d->tv_nsec >= 1000000000L) {
		d->tv_sec++;
		d->tv_nsec -= 1000000000L;
	}
}
