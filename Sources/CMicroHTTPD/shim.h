#ifndef SEARCHLIGHT_CMICROHTTPD_SHIM_H
#define SEARCHLIGHT_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are variadic, which
// Swift cannot call. These wrappers take plain arguments and pass MHD an option array.

typedef size_t (*sl_mhd_unescape_callback)(void *context, struct MHD_Connection *connection, char *text);

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
};

static inline struct MHD_Daemon *sl_mhd_start(const struct sl_mhd_options *o, MHD_AccessHandlerCallback handler, void *context) {
    struct MHD_OptionItem items[12];
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
