#ifndef CLSFILE_CSQLITE_H
#define CLSFILE_CSQLITE_H

/// The SQLite calls Swift cannot make itself (sqlite3_db_config is variadic). `connection` is an
/// open `sqlite3 *`, passed untyped so that this module does not declare SQLite's types a second time.

/// Makes closing the connection leave the write-ahead log for the next process, instead of
/// checkpointing it into the database file, which waits for the disk, and deleting it.
/// Returns an SQLite result code.
int clsfile_sqlite_keep_wal_on_close(void *connection);

/// Checkpoints the write-ahead log and truncates it to zero bytes, without waiting: returns
/// SQLITE_BUSY at once, having copied what it could, when another connection reads or writes.
/// `busy_timeout_ms` is the connection's busy timeout, restored afterwards.
/// Returns an SQLite result code.
int clsfile_sqlite_truncate_wal(void *connection, int busy_timeout_ms);

/// Sets how long the connection waits for a lock held by another connection; 0 fails at once.
void clsfile_sqlite_set_busy_timeout(void *connection, int milliseconds);

#endif
