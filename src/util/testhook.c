/* Test hooks (testhook.h): a step that a test holds for a signal. */
#include "util/testhook.h"
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void pmcfi_test_pause(const char *step)
{
	const char *v = getenv("PMCF_TEST_PAUSE");
	size_t l = strlen(step);
	if (!v || strncmp(v, step, l) != 0 || v[l] != ':')
		return;
	int fd = open(v + l + 1, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 100; i++)
		nanosleep(&(struct timespec){0, 50000000}, NULL);
}
