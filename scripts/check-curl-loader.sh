#!/usr/bin/env bash
# Checks Sources/KFCurlLoader (libcurl for `kf`, loaded on first use): compiles it with a small C
# program that is linked without libcurl, and runs that program. Every function the loader defines
# is called once; setopt is given a long, an off_t, a string and a function pointer, each with a
# value libcurl accepts and one it refuses, so a wrongly forwarded argument shows as a wrong code.
# Also checks that libcurl is not a NEEDED library of the program. Prints PASS or what failed.
#
#   scripts/check-curl-loader.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat >"$work/check.c" <<'C'
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static size_t sink(char *data, size_t size, size_t count, void *context) {
    (void)data;
    (void)context;
    return size * count;
}

static int failures = 0;

static void expect(int condition, const char *what) {
    if (!condition) {
        printf("FAILED: %s\n", what);
        failures++;
    }
}

int main(void) {
    expect(strncmp(curl_version(), "libcurl/", 8) == 0, "curl_version names libcurl");
    expect(curl_version_info(CURLVERSION_NOW) != NULL, "curl_version_info answers");
    expect(curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK, "curl_global_init succeeds");
    CURL *easy = curl_easy_init();
    expect(easy != NULL, "curl_easy_init gives a handle");
    if (easy == NULL) return 1;
    expect(curl_easy_setopt(easy, CURLOPT_PORT, 8080L) == CURLE_OK, "a long option: port 8080 accepted");
    expect(curl_easy_setopt(easy, CURLOPT_PORT, 70000L) == CURLE_BAD_FUNCTION_ARGUMENT, "a long option: port 70000 refused");
    expect(curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)100) == CURLE_OK, "an off_t option: 100 accepted");
    expect(curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)-1) == CURLE_BAD_FUNCTION_ARGUMENT, "an off_t option: -1 refused");
    expect(curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK, "a string option: http,https accepted");
    expect(curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "nonsense") != CURLE_OK, "a string option: nonsense refused");
    expect(curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, sink) == CURLE_OK, "a function option accepted");
    long status = -1;
    expect(curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status == 0, "getinfo writes through its pointer");
    expect(curl_easy_pause(easy, CURLPAUSE_CONT) == CURLE_BAD_FUNCTION_ARGUMENT, "curl_easy_pause refuses a handle with no transfer");
    expect(strstr(curl_easy_strerror(CURLE_BAD_FUNCTION_ARGUMENT), "bad argument") != NULL, "curl_easy_strerror");
    CURLM *multi = curl_multi_init();
    expect(multi != NULL, "curl_multi_init gives a handle");
    expect(curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 4L) == CURLM_OK, "a multi long option");
    expect(curl_multi_add_handle(multi, easy) == CURLM_OK, "curl_multi_add_handle");
    int running = -1;
    expect(curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running) == CURLM_OK, "curl_multi_socket_action");
    expect(curl_multi_assign(multi, 12345, NULL) == CURLM_BAD_SOCKET, "curl_multi_assign on an unknown socket");
    int queued = 0;
    while (curl_multi_info_read(multi, &queued) != NULL) {}
    expect(curl_multi_remove_handle(multi, easy) == CURLM_OK, "curl_multi_remove_handle");
    expect(curl_multi_cleanup(multi) == CURLM_OK, "curl_multi_cleanup");
    CURLU *url = curl_url();
    char *path = NULL;
    expect(curl_url_set(url, CURLUPART_URL, "http://127.0.0.1:9/a/b?c", 0) == CURLUE_OK, "curl_url_set");
    expect(curl_url_get(url, CURLUPART_PATH, &path, 0) == CURLUE_OK && path != NULL && strcmp(path, "/a/b") == 0, "curl_url_get");
    curl_free(path);
    struct curl_slist *headers = curl_slist_append(NULL, "X-Check: 1");
    expect(headers != NULL && strcmp(headers->data, "X-Check: 1") == 0, "curl_slist_append");
    curl_slist_free_all(headers);
    curl_easy_cleanup(easy);
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
C
clang -std=c11 -Wall -Wextra -Werror -O1 -o "$work/check" "$work/check.c" Sources/KFCurlLoader/kf_curl_loader.c
if readelf -d "$work/check" | grep -q 'libcurl'; then
    echo "FAILED: libcurl is a NEEDED library of the check program"
    exit 1
fi
"$work/check"
