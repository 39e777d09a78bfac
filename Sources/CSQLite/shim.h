#ifndef SEARCHLIGHT_CSQLITE_SHIM_H
#define SEARCHLIGHT_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift does not import: "make your own copy now".
static inline sqlite3_destructor_type sl_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
