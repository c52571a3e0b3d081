#include "CSQLite.h"

#include <sqlite3.h>
#include <stddef.h>

int clsfile_sqlite_keep_wal_on_close(void *connection) {
    int enabled = 0;
    return sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &enabled);
}

int clsfile_sqlite_truncate_wal(void *connection, int busy_timeout_ms) {
    sqlite3 *db = (sqlite3 *)connection;
    sqlite3_busy_timeout(db, 0);
    int result = sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    sqlite3_busy_timeout(db, busy_timeout_ms);
    return result;
}

void clsfile_sqlite_set_busy_timeout(void *connection, int milliseconds) {
    sqlite3_busy_timeout((sqlite3 *)connection, milliseconds);
}
