/* The pmcfuse command (being written). */
#include <stdio.h>
#include "pmcfuse/pmcfuse.h"
int main(void)
{
	printf("pmcfuse %s\n", pmcf_version());
	return 0;
}
