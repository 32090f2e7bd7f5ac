/* Removing a folder tree, for the library and the command (compiled into
 * both, never exported: x/x.h). */
#include <ftw.h>
#include <stdio.h>
#include "x/x.h"

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0; /* go on with the rest */
}

void pmcfi_rm_tree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }
