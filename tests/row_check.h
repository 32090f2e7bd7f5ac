/* Table-driven tests: a failed row names its line (rows carry __LINE__).
 * Include after cmocka.h. */
#ifndef PMCF_TESTS_ROW_CHECK_H
#define PMCF_TESTS_ROW_CHECK_H
#define ROW_CHECK(line, cond, ...)                               \
	do {                                                     \
		if (!(cond)) {                                   \
			print_error("row at line %d: ", (line)); \
			fail_msg(__VA_ARGS__);                   \
		}                                                \
	} while (0)
#endif
