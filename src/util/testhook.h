/* Test hooks: a step of a long operation that a test can hold, to send a
 * signal during it (tests/e2e/adversarial_run.sh). Not exported. */
#ifndef PMCF_UTIL_TESTHOOK_H
#define PMCF_UTIL_TESTHOOK_H

/* With PMCF_TEST_PAUSE=STEP:FILE in the environment and step equal to STEP,
 * creates FILE and waits 5 s; otherwise returns at once. Steps: "read" (the
 * collector, once the program has ended, before reading its records) and
 * "fuse" (pmcf_combine, before it starts). */
void pmcfi_test_pause(const char *step);
#endif
