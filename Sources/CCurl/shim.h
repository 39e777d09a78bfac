#ifndef SEARCHLIGHT_CCURL_SHIM_H
#define SEARCHLIGHT_CCURL_SHIM_H

#include <curl/curl.h>
#include <sys/socket.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift
// cannot call. One typed wrapper per argument kind, as swift-corelibs-foundation does.

static inline CURLcode sl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sl_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }

typedef size_t (*sl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode sl_easy_setopt_data_callback(CURL *h, CURLoption o, sl_data_callback cb) { return curl_easy_setopt(h, o, cb); }

typedef curl_socket_t (*sl_opensocket_callback)(void *clientp, curlsocktype purpose, struct curl_sockaddr *address);
static inline CURLcode sl_easy_setopt_opensocket_callback(CURL *h, sl_opensocket_callback cb) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, cb); }

typedef int (*sl_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode sl_easy_setopt_xferinfo_callback(CURL *h, sl_xferinfo_callback cb) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb); }

typedef int (*sl_debug_callback)(CURL *handle, curl_infotype type, char *data, size_t size, void *clientp);
static inline CURLcode sl_easy_setopt_debug_callback(CURL *h, sl_debug_callback cb) { return curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, cb); }

static inline CURLcode sl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode sl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode sl_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode sl_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }

static inline CURLMcode sl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

// CURL_SOCKET_BAD is a macro Swift does not import.
static inline curl_socket_t sl_socket_bad(void) { return CURL_SOCKET_BAD; }

#endif
