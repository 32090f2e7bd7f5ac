/* `pmcfuse combine`'s inputs: folders expanded into their executions, and
 * the checks that no input is given twice or would be replaced. */
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "cli/verbs/combine.h"
#include "x/x.h"

int combine_old_not_input(const char *verb, const char *const *in, size_t n)
{
	struct stat so, si;
	if (stat(CLI_DEFAULT_OUT ".old", &so) != 0 || stat(CLI_DEFAULT_OUT, &si) != 0)
		return CLI_OK;
	for (size_t i = 0; i < n; i++)
		if (stat(in[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return cli_error(
				verb, CLI_EUSAGE,
				"the input '%s' would be replaced: without -o the previous " CLI_DEFAULT_OUT
				" is kept as " CLI_DEFAULT_OUT ".old (give -o OUT)",
				in[i]);
	return CLI_OK;
}

int combine_expand_inputs(const char *verb, char **args, size_t n, char ***out, size_t *nout)
{
	char **v = NULL;
	size_t nv = 0, cap = 0;
	int st = CLI_OK;
	for (size_t j = 0; j < n && !st; j++) {
		struct stat sb;
		const char *base = strrchr(args[j], '/');
		base = base ? base + 1 : args[j];
		if (strcmp(base, "campaign.json") == 0) { /* a glob over a campaign folder */
			st = cli_error(
				verb, CLI_EUSAGE,
				"'%s' is a campaign's manifest, not a profile: give the campaign folder"
				" itself (pmcfuse combine -o OUT DIR) or its exec-*.pmcf",
				args[j]);
			break;
		}
		if (stat(args[j], &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			char *c = strdup(args[j]);
			if (!c || pmcfi_grow((void **)&v, &cap, nv + 1, sizeof(*v))) {
				free(c);
				st = cli_error(verb, CLI_EENV, "out of memory");
				break;
			}
			v[nv++] = c;
			continue;
		}
		size_t len = strlen(args[j]) + sizeof("/exec-*.pmcf");
		char *pat = malloc(len);
		if (!pat) {
			st = cli_error(verb, CLI_EENV, "out of memory");
			break;
		}
		snprintf(pat, len, "%s%sexec-*.pmcf", args[j],
			 args[j][strlen(args[j]) - 1] == '/' ? "" : "/");
		glob_t g;
		int rc = glob(pat, 0, NULL, &g);
		free(pat);
		if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
			st = cli_error(
				verb, CLI_EUSAGE,
				"'%s' is a folder without executions (exec-K.pmcf, as run --keep writes"
				" them); name the profiles to fuse",
				args[j]);
		} else if (rc != 0) {
			st = cli_error(verb, CLI_EENV, "cannot list '%s'", args[j]);
		} else {
			for (size_t k = 0; k < g.gl_pathc && !st; k++) {
				char *c = strdup(g.gl_pathv[k]);
				if (!c || pmcfi_grow((void **)&v, &cap, nv + 1, sizeof(*v))) {
					free(c);
					st = cli_error(verb, CLI_EENV, "out of memory");
				} else
					v[nv++] = c;
			}
		}
		if (rc == 0)
			globfree(&g);
	}
	if (st) {
		for (size_t k = 0; k < nv; k++)
			free(v[k]);
		free(v);
		return st;
	}
	*out = v;
	*nout = nv;
	return CLI_OK;
}

void combine_free_inputs(char **v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(v[k]);
	free(v);
}

int combine_same_file_twice(const char *verb, char **paths, size_t n)
{
	struct stat *sb = calloc(n, sizeof(*sb));
	if (!sb)
		return cli_error(verb, CLI_EENV, "out of memory");
	int st = CLI_OK;
	for (size_t j = 0; j < n && !st; j++) {
		if (stat(paths[j], &sb[j]) != 0)
			continue; /* opening it reports why */
		for (size_t i = 0; i < j && !st; i++)
			if (sb[i].st_dev == sb[j].st_dev && sb[i].st_ino == sb[j].st_ino)
				st = cli_error(verb, CLI_EUSAGE, "%s and %s are the same file", paths[i],
					       paths[j]);
	}
	free(sb);
	return st;
}
