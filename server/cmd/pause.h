/* pause.h -- CLIENT PAUSE and CLIENT UNPAUSE: clients' commands wait, as Redis
 * 7.0's do.
 *
 * Why: a pause lets an operator (or a client library's test) hold the dataset
 * still: under PAUSE WRITE the commands that could change it (CMD_WRITE or
 * CMD_MAY_REPLICATE, and an EXEC whose transaction holds one) wait while reads
 * run; under PAUSE ALL every command waits, CLIENT UNPAUSE included. A waiting
 * command stays unparsed in its client's query buffer (CLIENT_POSTPONED: the
 * client runs nothing more meanwhile) and runs, in order, once the pause ends.
 * Keys do not expire while a pause lasts (keyspace/db.h, db_expiry_held): a key
 * whose time has passed reads as missing but stays, so nothing is deleted.
 *
 * Contract: pause_postpone is asked by the dispatcher before a command runs or
 * is queued by MULTI; pause_cron ends a pause whose time is up; pause_release
 * forgets a client being freed. */
#ifndef SP_PAUSE_H
#define SP_PAUSE_H

#include <stdint.h>

#include "server.h"

enum { PAUSE_NONE = 0, PAUSE_WRITE = 1, PAUSE_ALL = 2 };

/* Pause until end (ms since epoch). A pause in force is extended, never
 * shortened, and ALL wins over WRITE, as in Redis. */
void pause_start(int mode, int64_t end);
/* End the pause now: the waiting clients run their commands next iteration. */
void pause_end(void);
/* 1 (and c marked CLIENT_POSTPONED, its request left in its buffer) if cmd
 * must wait for the pause to end; 0 if it runs now. */
int pause_postpone(client *c, const cmd_def *cmd);
/* End the pause if its time is up (the cron). */
void pause_cron(int64_t now);
/* c is being freed: forget it. */
void pause_release(client *c);
/* The mode in force (PAUSE_*). */
int pause_mode(void);

#endif
