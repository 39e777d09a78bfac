#ifndef SEARCHLIGHT_CMICROHTTPD_SHIM_H
#define SEARCHLIGHT_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are variadic, which
// Swift cannot call. These wrappers take plain arguments and pass MHD an option array.

typedef size_t (*sl_mhd_unescape_callback)(void *context, struct MHD_Connection *connection, char *text);

// The request-target limits, checked when libmicrohttpd has read the request line and before
// it splits the query into parameters: each parameter takes a record from the connection's
// memory pool, and a pool spent on them leaves none for an answer, so a line of thousands of
// parameters was closed unanswered. A target past a limit has its query cut off (nothing is
// split) and the request is marked, for the handler to answer 414.
struct sl_mhd_target_limits {
    size_t maximum_bytes;
    size_t maximum_parameters;
};

// The markers are addresses no allocation has (1 and 2), the same in every translation unit;
// only the handler and the completion callback see them, and neither dereferences them.
static inline void *sl_mhd_target_too_long(void) { return (void *)(uintptr_t)1; }
static inline void *sl_mhd_too_many_parameters(void) { return (void *)(uintptr_t)2; }

static inline void *sl_mhd_check_target(void *context, const char *uri, struct MHD_Connection *connection) {
    (void)connection;
    const struct sl_mhd_target_limits *limits = context;
    if (!uri || !limits) return NULL;
    size_t length = strlen(uri);
    char *query = strchr(uri, '?');
    size_t parameters = 0;
    if (query) {
        parameters = 1;
        for (const char *c = query + 1; *c; c++) if (*c == '&') parameters++;
    }
    void *marker = NULL;
    if (length > limits->maximum_bytes) marker = sl_mhd_target_too_long();
    else if (parameters > limits->maximum_parameters) marker = sl_mhd_too_many_parameters();
    // The line sits in the connection's writable read buffer, which libmicrohttpd itself
    // cuts at the '?' next: an empty query leaves nothing to split.
    if (marker && query) query[1] = '\0';
    return marker;
}

struct sl_mhd_options {
    unsigned int flags;
    const struct sockaddr *bind_address;
    unsigned int connection_timeout;
    unsigned int thread_pool_size;
    size_t connection_memory_limit;
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    const char *tls_key_pem;
    const char *tls_cert_pem;
    MHD_RequestCompletedCallback completed;
    void *completed_context;
    sl_mhd_unescape_callback unescape;
    const struct sl_mhd_target_limits *target_limits;
};

static inline struct MHD_Daemon *sl_mhd_start(const struct sl_mhd_options *o, MHD_AccessHandlerCallback handler, void *context) {
    struct MHD_OptionItem items[13];
    int n = 0;
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, (void *)o->bind_address };
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)o->connection_timeout, NULL };
    if (o->thread_pool_size > 1)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)o->thread_pool_size, NULL };
    if (o->connection_limit > 0)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, (intptr_t)o->connection_limit, NULL };
    if (o->per_ip_connection_limit > 0)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)o->per_ip_connection_limit, NULL };
    if (o->connection_memory_limit > 0)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)o->connection_memory_limit, NULL };
    if (o->tls_key_pem && o->tls_cert_pem) {
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)o->tls_key_pem };
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)o->tls_cert_pem };
    }
    if (o->completed)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)o->completed, o->completed_context };
    if (o->unescape)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)o->unescape, NULL };
    if (o->target_limits)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)sl_mhd_check_target, (void *)o->target_limits };
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    return MHD_start_daemon(o->flags, 0, NULL, NULL, handler, context, MHD_OPTION_ARRAY, items, MHD_OPTION_END);
}

static inline uint16_t sl_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

static inline const struct sockaddr *sl_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

static inline ssize_t sl_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t sl_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
static inline uint64_t sl_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

#endif
