/*
 * libcurl for `kf`, loaded on first use instead of at start-up.
 *
 * FoundationNetworking (which gives the downloader's hooks their URLRequest and HTTPURLResponse
 * types) calls libcurl from its URLSession code, so a plain link makes libcurl and the thirty
 * libraries it needs a NEEDED dependency that the loader maps and relocates on every start: 5.5 MB
 * of resident memory, although `kf` transfers with AsyncHTTPClient and never runs URLSession.
 * This file defines the libcurl functions FoundationNetworking's C part calls; the first call
 * opens libcurl.so.4 and looks every one up, and each call then goes straight through. With
 * `--as-needed` in the release link, libcurl is no longer a NEEDED library of `kf`.
 *
 * If libcurl cannot be loaded, the process ends as the loader would have ended it at start-up:
 * a message on standard error and exit status 127.
 */

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#define KF_CURL_FUNCTIONS(X)                                                                     \
    X(curl_easy_cleanup, void, (CURL *))                                                         \
    X(curl_easy_getinfo, CURLcode, (CURL *, CURLINFO, ...))                                      \
    X(curl_easy_init, CURL *, (void))                                                            \
    X(curl_easy_pause, CURLcode, (CURL *, int))                                                  \
    X(curl_easy_setopt, CURLcode, (CURL *, CURLoption, ...))                                     \
    X(curl_easy_strerror, const char *, (CURLcode))                                              \
    X(curl_free, void, (void *))                                                                 \
    X(curl_global_init, CURLcode, (long))                                                        \
    X(curl_multi_add_handle, CURLMcode, (CURLM *, CURL *))                                       \
    X(curl_multi_assign, CURLMcode, (CURLM *, curl_socket_t, void *))                            \
    X(curl_multi_cleanup, CURLMcode, (CURLM *))                                                  \
    X(curl_multi_info_read, CURLMsg *, (CURLM *, int *))                                         \
    X(curl_multi_init, CURLM *, (void))                                                          \
    X(curl_multi_remove_handle, CURLMcode, (CURLM *, CURL *))                                    \
    X(curl_multi_setopt, CURLMcode, (CURLM *, CURLMoption, ...))                                 \
    X(curl_multi_socket_action, CURLMcode, (CURLM *, curl_socket_t, int, int *))                 \
    X(curl_slist_append, struct curl_slist *, (struct curl_slist *, const char *))               \
    X(curl_slist_free_all, void, (struct curl_slist *))                                          \
    X(curl_url, CURLU *, (void))                                                                 \
    X(curl_url_get, CURLUcode, (CURLU *, CURLUPart, char **, unsigned int))                \
    X(curl_url_set, CURLUcode, (CURLU *, CURLUPart, const char *, unsigned int))                 \
    X(curl_version, char *, (void))                                                              \
    X(curl_version_info, curl_version_info_data *, (CURLversion))

/* The real functions, written once under `once` and only read after it. */
static struct {
#define KF_CURL_FIELD(name, result, parameters) result(*name) parameters;
    KF_CURL_FUNCTIONS(KF_CURL_FIELD)
#undef KF_CURL_FIELD
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void kf_curl_fail(const char *what) {
    const char *reason = dlerror();
    fprintf(stderr, "kf: cannot load libcurl.so.4 (%s): %s\n", what, reason != NULL ? reason : "unknown error");
    _exit(127);
}

static void kf_curl_open(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        kf_curl_fail("dlopen");
    }
#define KF_CURL_LOOKUP(name, result, parameters)                     \
    *(void **)&real.name = dlsym(library, #name);                    \
    if (real.name == NULL) {                                         \
        kf_curl_fail(#name);                                         \
    }
    KF_CURL_FUNCTIONS(KF_CURL_LOOKUP)
#undef KF_CURL_LOOKUP
}

static inline void kf_curl_load(void) {
    pthread_once(&once, kf_curl_open);
}

/*
 * The one argument after a setopt option, read with its real type: libcurl numbers its options in
 * ranges by the type of their argument (CURLOPTTYPE_*), for easy and multi handles alike.
 */
#define KF_CURL_FORWARD_OPTION(function, handle, option, arguments)                           \
    do {                                                                                       \
        long kind = (long)(option) / 10000 * 10000;                                            \
        if (kind == CURLOPTTYPE_LONG) {                                                        \
            return real.function(handle, option, va_arg(arguments, long));                     \
        } else if (kind == CURLOPTTYPE_FUNCTIONPOINT) {                                        \
            return real.function(handle, option, va_arg(arguments, void (*)(void)));           \
        } else if (kind == CURLOPTTYPE_OFF_T) {                                                \
            return real.function(handle, option, va_arg(arguments, curl_off_t));               \
        }                                                                                      \
        return real.function(handle, option, va_arg(arguments, void *));                       \
    } while (0)

static CURLcode kf_easy_setopt(CURL *handle, CURLoption option, va_list arguments) {
    KF_CURL_FORWARD_OPTION(curl_easy_setopt, handle, option, arguments);
}

static CURLMcode kf_multi_setopt(CURLM *handle, CURLMoption option, va_list arguments) {
    KF_CURL_FORWARD_OPTION(curl_multi_setopt, handle, option, arguments);
}

CURLcode curl_easy_setopt(CURL *handle, CURLoption option, ...) {
    kf_curl_load();
    va_list arguments;
    va_start(arguments, option);
    CURLcode code = kf_easy_setopt(handle, option, arguments);
    va_end(arguments);
    return code;
}

CURLMcode curl_multi_setopt(CURLM *handle, CURLMoption option, ...) {
    kf_curl_load();
    va_list arguments;
    va_start(arguments, option);
    CURLMcode code = kf_multi_setopt(handle, option, arguments);
    va_end(arguments);
    return code;
}

/* Every CURLINFO takes one pointer to where the answer goes. */
CURLcode curl_easy_getinfo(CURL *handle, CURLINFO info, ...) {
    kf_curl_load();
    va_list arguments;
    va_start(arguments, info);
    void *answer = va_arg(arguments, void *);
    va_end(arguments);
    return real.curl_easy_getinfo(handle, info, answer);
}

void curl_easy_cleanup(CURL *handle) { kf_curl_load(); real.curl_easy_cleanup(handle); }
CURL *curl_easy_init(void) { kf_curl_load(); return real.curl_easy_init(); }
CURLcode curl_easy_pause(CURL *handle, int mask) { kf_curl_load(); return real.curl_easy_pause(handle, mask); }
const char *curl_easy_strerror(CURLcode code) { kf_curl_load(); return real.curl_easy_strerror(code); }
void curl_free(void *pointer) { kf_curl_load(); real.curl_free(pointer); }
CURLcode curl_global_init(long flags) { kf_curl_load(); return real.curl_global_init(flags); }

CURLMcode curl_multi_add_handle(CURLM *multi, CURL *easy) {
    kf_curl_load();
    return real.curl_multi_add_handle(multi, easy);
}

CURLMcode curl_multi_assign(CURLM *multi, curl_socket_t socket, void *pointer) {
    kf_curl_load();
    return real.curl_multi_assign(multi, socket, pointer);
}

CURLMcode curl_multi_cleanup(CURLM *multi) { kf_curl_load(); return real.curl_multi_cleanup(multi); }

CURLMsg *curl_multi_info_read(CURLM *multi, int *remaining) {
    kf_curl_load();
    return real.curl_multi_info_read(multi, remaining);
}

CURLM *curl_multi_init(void) { kf_curl_load(); return real.curl_multi_init(); }

CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *easy) {
    kf_curl_load();
    return real.curl_multi_remove_handle(multi, easy);
}

CURLMcode curl_multi_socket_action(CURLM *multi, curl_socket_t socket, int events, int *running) {
    kf_curl_load();
    return real.curl_multi_socket_action(multi, socket, events, running);
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *text) {
    kf_curl_load();
    return real.curl_slist_append(list, text);
}

void curl_slist_free_all(struct curl_slist *list) { kf_curl_load(); real.curl_slist_free_all(list); }
CURLU *curl_url(void) { kf_curl_load(); return real.curl_url(); }

CURLUcode curl_url_get(CURLU *url, CURLUPart part, char **text, unsigned int flags) {
    kf_curl_load();
    return real.curl_url_get(url, part, text, flags);
}

CURLUcode curl_url_set(CURLU *url, CURLUPart part, const char *text, unsigned int flags) {
    kf_curl_load();
    return real.curl_url_set(url, part, text, flags);
}

char *curl_version(void) { kf_curl_load(); return real.curl_version(); }

curl_version_info_data *curl_version_info(CURLversion version) {
    kf_curl_load();
    return real.curl_version_info(version);
}
