/* `pmcfuse record` (placeholder until the simulator lands; owned by the sim work). */
#include "cli/cli.h"
int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_error("record", CLI_EUSAGE, "no source available in this build");
}
