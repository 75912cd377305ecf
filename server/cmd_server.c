/* cmd_server.c -- server commands. */
#include "commands.h"

const cmd_def cmd_table_server[] = {
    {0},
};
