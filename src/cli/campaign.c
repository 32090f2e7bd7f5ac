/* The options of `run` and `reference` around the library's campaigns
 * (docs/campaigns.md, docs/slurm.md) and `VERB --resume DIR` alone; the
 * session that prints a campaign's progress is campaign_session.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "pmcfuse/plan.h"
#include "x/x.h"

/* ---- options -------------------------------------------------------------- */
/* --launcher NAME, --slurm-args, --wait, --only K (1), else 0. */
static int launch_option(const char *verb, int c, const char *arg, char **argv, int optind,
			 struct campaign_args *a, int *st)
{
	switch (c) {
	case CAMPAIGN_OPT_LAUNCHER: {
		size_t n;
		const pmcf_launcher *t = pmcf_launchers(&n);
		if (!(a->launcher = pmcf_launcher_find(arg))) {
			char names[128] = "";
			for (size_t i = 0, o = 0; i < n && o < sizeof(names); i++)
				o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s",
						      i ? (i + 1 == n ? " or " : ", ") : "", t[i].name);
			*st = cli_usage_error(verb, "--launcher %s: use %s", arg, names);
		}
		break;
	}
	case CAMPAIGN_OPT_SLURM_ARGS: a->slurm_args = arg; break;
	case CAMPAIGN_OPT_WAIT: a->wait = 1; break;
	case CAMPAIGN_OPT_ONLY: {
		unsigned long k;
		if (cli_parse_uint(verb, "--only", arg, 0, LONG_MAX, &k))
			*st = CLI_EUSAGE;
		a->only = (long)k;
		break;
	}
	default: return 0;
	}
	/* its words: "--opt value" is two, "--opt=value" and "--wait" one */
	int w = arg && arg == argv[optind - 1] ? 2 : 1;
	for (int i = optind - w; i < optind && a->nlaunch < CAMPAIGN_MAX_WORDS; i++)
		a->launch[a->nlaunch++] = argv[i];
	return 1;
}

int campaign_option(const char *verb, int c, const char *arg, char **argv, int optind,
		    struct campaign_args *a, int *st)
{
	*st = CLI_OK;
	if (launch_option(verb, c, arg, argv, optind, a, st))
		return 1;
	if (cli_output_option(c, &a->json)) {
		/* its word (one; "-qv" counted once) */
		char *w = argv[optind - 1];
		if (!(a->nout && a->words[a->nout - 1] == w) && a->nout < 8) {
			a->words[a->nout++] = w;
			a->nwords++;
		}
		return 1;
	}
	if (c == CAMPAIGN_OPT_RESUME) {
		a->resume = arg;
		a->nwords += arg == argv[optind - 1] ? 2 : 1;
	} else if (c == CAMPAIGN_OPT_PROGOUT)
		a->progout = arg;
	return c == CAMPAIGN_OPT_RESUME || c == CAMPAIGN_OPT_PROGOUT;
}

int campaign_is_slurm(const struct campaign_args *a)
{
	return a->launcher && !strcmp(a->launcher->name, "slurm");
}

/* The launcher options together (before any work). */
static int launch_check(const char *verb, const struct campaign_args *a)
{
	int slurm = campaign_is_slurm(a);
	if (a->only >= 0 && !a->resume)
		return cli_usage_error(verb, "--only K records one execution of a campaign: it "
					     "needs --resume DIR");
	if (a->only >= 0 && slurm)
		return cli_usage_error(verb, "--only K records here: not with --launcher slurm");
	if (!slurm && (a->wait || a->slurm_args))
		return cli_usage_error(verb, "%s is for --launcher slurm",
				       a->wait ? "--wait" : "--slurm-args");
	pmcf_launch_opts lo = PMCF_LAUNCH_OPTS_INIT;
	lo.args = a->slurm_args;
	int err = a->launcher ? a->launcher->check(&lo) : 0;
	if (err == PMCF_EINVAL) /* the words of --slurm-args */
		return cli_usage_error(verb, "--slurm-args %s", pmcf_errdetail());
	if (err)
		return cli_error(verb, cli_status_for(err), "--launcher %s: %s", a->launcher->name,
				 pmcf_errdetail());
	return CLI_OK;
}

/* The campaign's folder in the stored command (the value of an option of
 * diropts, before "--") becomes dir: a campaign copied or moved elsewhere
 * resumes in its new place. 0, or -ENOMEM. */
static int stored_folder_set(int n, char **v, const char *const *diropts, const char *dir)
{
	for (int i = 0; diropts && i < n && strcmp(v[i], "--") != 0; i++)
		for (const char *const *o = diropts; *o; o++) {
			size_t len = strlen(*o);
			if (strncmp(v[i], *o, len) != 0)
				continue;
			char *w = NULL;
			int k = i, bad;
			if (!v[i][len] && i + 1 < n) /* "--keep DIR", "-o DIR" */
				k = i + 1, bad = !(w = strdup(dir));
			else if (v[i][len] == '=' || (v[i][len] && (*o)[1] != '-')) /* --keep=DIR, -oDIR */
				bad = asprintf(&w, "%s%s%s", *o, v[i][len] == '=' ? "=" : "", dir) < 0;
			else
				continue;
			if (bad)
				return -ENOMEM;
			free(v[k]);
			v[k] = w;
			i = k;
			break;
		}
	return 0;
}

/* `VERB --resume DIR` alone (but for the nextra launcher and output words
 * extra, kept before the stored options): runs cmd with the command line
 * stored in DIR's manifest, in the folder it was started in (DIR made
 * absolute first). */
static int resume_alone(const char *verb, const char *dir, int nextra, char *const *extra,
			const char *const *diropts, int (*cmd)(int, char **))
{
	int n = 0, st = CLI_OK;
	char **stored = NULL, *cwd = NULL;
	int err = pmcf_campaign_command(verb, dir, &n, &stored, &cwd);
	if (err)
		return cli_lib_error(verb, err, dir);
	/* the stored command's paths (program, -o, @FILE, the program's own
	 * arguments) are relative to the folder it was run in: go there, with
	 * the campaign's own path made absolute first */
	char *abs = realpath(dir, NULL);
	if (!abs)
		st = cli_error(verb, cli_status_for(-errno), "%s: %s", dir, strerror(errno));
	else if (stored_folder_set(n, stored, diropts, abs) != 0)
		st = cli_error(verb, CLI_EENV, "out of memory");
	else if (!*cwd || cli_same_folder(cwd, ".")) {
		free(abs); /* already there: DIR as the user spelled it */
		abs = strdup(dir);
	} else if (chdir(cwd) != 0)
		st = cli_error(verb, CLI_EUSAGE,
			       "the campaign %s was started in %s, which is gone (%s): give "
			       "the whole command again after --resume %s",
			       dir, cwd, strerror(errno), dir);
	char **v = st ? NULL : calloc((size_t)(n + nextra) + 4, sizeof(*v));
	if (!st && (!v || !abs))
		st = cli_error(verb, CLI_EENV, "out of memory");
	if (!st) {
		v[0] = (char *)verb;
		v[1] = "--resume";
		v[2] = abs;
		memcpy(v + 3, extra, (size_t)nextra * sizeof(*v));
		memcpy(v + 3 + nextra, stored, (size_t)n * sizeof(*v));
		st = cmd(n + nextra + 3, v);
	}
	free(v);
	free(abs);
	pmcf_campaign_command_free(n, stored, cwd);
	return st;
}

int campaign_args_done(const char *verb, const struct campaign_args *a, int argc, int optind,
		       const char *const *diropts, int (*cmd)(int, char **), int *st)
{
	if ((*st = launch_check(verb, a)))
		return 1;
	if (!a->resume || optind < argc || argc - 1 != a->nlaunch + a->nwords)
		return 0;
	/* --resume DIR alone (with launcher and -q/-v/--json options) */
	char *extra[CAMPAIGN_MAX_WORDS + 8];
	int nextra = 0;
	for (int i = 0; i < a->nlaunch; i++)
		extra[nextra++] = a->launch[i];
	for (int i = 0; i < a->nout; i++)
		extra[nextra++] = a->words[i];
	*st = resume_alone(verb, a->resume, nextra, extra, diropts, cmd);
	return 1;
}
