/* pause.c -- CLIENT PAUSE and CLIENT UNPAUSE (see pause.h).
 *
 * Invariants: a client is on the waiting list iff it has CLIENT_POSTPONED;
 * db_expiry_held is set iff a pause is in force. */
#include "cmd/pause.h"

#include <string.h>

#include "cmd/block.h"
#include "cmd/multi.h"
#include "core/mem.h"
#include "core/util.h"
#include "keyspace/db.h"
#include "net/client.h"

static int mode;      /* PAUSE_* in force */
static int64_t until; /* ms since epoch: when the pause ends */
static client **waiting;
static int nwaiting, capwaiting;

int pause_mode(void)
{
    return mode;
}

void pause_start(int m, int64_t end)
{
    if (m > mode)
        mode = m;
    if (end > until)
        until = end;
    db_expiry_held = 1;
}

void pause_end(void)
{
    int i;

    mode = PAUSE_NONE;
    until = 0;
    db_expiry_held = 0;
    for (i = 0; i < nwaiting; i++) {
        waiting[i]->flags &= ~CLIENT_POSTPONED;
        waiting[i]->last_interaction = now_ms(); /* it waited, it was not idle */
        blk_resume_later(waiting[i]);
    }
    nwaiting = 0;
}

void pause_cron(int64_t now)
{
    if (mode != PAUSE_NONE && now >= until)
        pause_end();
}

int pause_postpone(client *c, const cmd_def *cmd)
{
    if (mode == PAUSE_NONE || (c->flags & CLIENT_FAKE))
        return 0;
    if (now_ms() >= until) {
        pause_end();
        return 0;
    }
    if (mode == PAUSE_WRITE && !(cmd->flags & (CMD_WRITE | CMD_MAY_REPLICATE)) &&
        !(cmd == srv.cmd_exec && (c->flags & CLIENT_MULTI) && multi_has_write(c)))
        return 0;
    if (nwaiting == capwaiting) {
        capwaiting = capwaiting ? capwaiting * 2 : 16;
        waiting = xrealloc(waiting, sizeof(*waiting) * (size_t)capwaiting);
    }
    waiting[nwaiting++] = c;
    c->flags |= CLIENT_POSTPONED;
    return 1;
}

void pause_release(client *c)
{
    int i;

    if (!(c->flags & CLIENT_POSTPONED))
        return;
    for (i = 0; i < nwaiting; i++)
        if (waiting[i] == c) {
            memmove(waiting + i, waiting + i + 1, sizeof(*waiting) * (size_t)(nwaiting - i - 1));
            nwaiting--;
            break;
        }
    c->flags &= ~CLIENT_POSTPONED;
}
