/* Launchers of `run` and `reference` (docs/slurm.md): `local` records the
 * executions of a campaign here, one after the other; `slurm` writes an
 * sbatch job array over them (one execution per array task, each one
 * `VERB --resume DIR --only K`) and a finishing job that depends on it,
 * submits both, and follows them with --wait. */
#ifndef PMCF_CLI_LAUNCHER_H
#define PMCF_CLI_LAUNCHER_H
#include <stddef.h>

enum {
	LAUNCH_OPT_LAUNCHER = 0x4c00,
	LAUNCH_OPT_SLURM_ARGS,
	LAUNCH_OPT_WAIT,
	LAUNCH_OPT_ONLY,
};
/* The long options of the launchers, for a verb's getopt_long table. */
#define LAUNCH_LONGOPTS                                                         \
	{"launcher", required_argument, NULL, LAUNCH_OPT_LAUNCHER},             \
		{"slurm-args", required_argument, NULL, LAUNCH_OPT_SLURM_ARGS}, \
		{"wait", no_argument, NULL, LAUNCH_OPT_WAIT},                   \
	{                                                                       \
		"only", required_argument, NULL, LAUNCH_OPT_ONLY                \
	}

#define LAUNCH_MAX_WORDS 8
struct launch {
	int slurm;              /* --launcher slurm */
	const char *slurm_args; /* --slurm-args: more sbatch options */
	int wait;               /* --wait: follow the jobs */
	long only;              /* --only K: record execution K alone (-1: all) */
	int nwords;             /* argv words these options took, in order */
	char *words[LAUNCH_MAX_WORDS];
};
#define LAUNCH_INIT        \
	{                  \
		.only = -1 \
	}

/* Handles getopt_long's answer c when it is a launcher option (1; *st set
 * to an exit status when it is wrong), else 0. argv and optind as getopt
 * left them. */
int launch_option(const char *verb, int c, const char *arg, char **argv, int optind, struct launch *l,
		  int *st);
/* After parsing: checks the launcher options together (resume: the
 * --resume folder or NULL); prints the error and returns its exit status. */
int launch_check(const char *verb, const struct launch *l, const char *resume);
/* The words of argv[first..argc) that are not launcher options, as kept in
 * the manifest (a campaign does not remember how it was launched):
 * malloc'ed array of pointers into argv, its size in *n. NULL: no memory. */
char **launch_command(const struct launch *l, int argc, char **argv, int first, int *n);

struct campaign;
/* Submits the executions of campaign c (n in all) that are not done yet as
 * an sbatch job array, and a finishing job (`VERB --resume DIR`) that runs
 * once every array task succeeded; writes the scripts and logs in DIR/slurm/.
 * Prints the job ids and how to follow and finish, or with l->wait follows
 * the jobs and prints the finishing job's output. Returns an exit status. */
int launch_slurm(const char *verb, struct campaign *c, size_t n, const struct launch *l);
#endif
