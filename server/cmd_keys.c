/* cmd_keys.c -- generic key commands. */
#include "commands.h"

const cmd_def cmd_table_keys[] = {
    {0},
};
