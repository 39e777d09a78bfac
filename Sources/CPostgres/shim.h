#ifndef SEARCHLIGHT_CPOSTGRES_SHIM_H
#define SEARCHLIGHT_CPOSTGRES_SHIM_H

#include <libpq-fe.h>

// PG_DIAG_* are plain macros over characters; named here so Swift can pass them.
static inline int sl_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int sl_pg_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }

#endif
