/* Array growth, the one rule of the library and the command (compiled into
 * both, never exported: x/x.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "x/x.h"

size_t pmcfi_grow_cap(size_t cap, size_t need)
{
	if (need <= cap)
		return cap;
	size_t ncap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
	if (ncap < need)
		ncap = need;
	return ncap < 8 ? 8 : ncap;
}

int pmcfi_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = pmcfi_grow_cap(*cap, need);
	if (!elem || ncap > SIZE_MAX / elem)
		return -ENOMEM;
	void *q = realloc(*p, ncap * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}
